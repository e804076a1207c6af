import { ActionIcon, Button, Group, NumberInput, Paper, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { ExpectedStatus, PATH_OPERATORS, type JsonType, type PathOperator } from '../../../../shared/collections';
import { ErrorCode } from '../../../../shared/errors';
import { assertionFromDraft, EMPTY_ASSERTION, JSON_TYPES, type AssertionDraft } from './requestDraft';

const KINDS = [
  { value: 'status', label: 'Status' },
  { value: 'path', label: 'JSON path' },
  { value: 'schema', label: 'JSON Schema' },
  { value: 'latency', label: 'Latency below' },
];

export interface AssertionsEditorProps {
  value: AssertionDraft[];
  onChange: (value: AssertionDraft[]) => void;
}

/** The checks on a request's outcome; none means "status ok". */
export function AssertionsEditor({ value, onChange }: AssertionsEditorProps) {
  const update = (index: number, patch: Partial<AssertionDraft>) => onChange(value.map((a, i) => (i === index ? { ...a, ...patch } : a)));
  return (
    <Stack gap="xs" role="group" aria-label="Assertions">
      {value.length === 0 && (
        <Text size="sm" c="dimmed">
          No assertions: the request passes when its status is ok.
        </Text>
      )}
      {value.map((draft, index) => (
        <AssertionRow key={index} index={index} draft={draft} onChange={(patch) => update(index, patch)} onRemove={() => onChange(value.filter((_, i) => i !== index))} />
      ))}
      <Group>
        <Button variant="light" size="xs" leftSection={<IconPlus size={14} />} onClick={() => onChange([...value, EMPTY_ASSERTION])}>
          Add assertion
        </Button>
      </Group>
    </Stack>
  );
}

function AssertionRow({ index, draft, onChange, onRemove }: { index: number; draft: AssertionDraft; onChange: (patch: Partial<AssertionDraft>) => void; onRemove: () => void }) {
  const checked = assertionFromDraft(draft);
  const n = index + 1;
  return (
    <Paper withBorder p="xs" radius="md" aria-label={`Assertion ${n}`} component="fieldset" style={{ margin: 0 }}>
      <Group align="flex-start" gap="xs" wrap="nowrap">
        <Select size="xs" w={140} label="Kind" data={KINDS} value={draft.kind} allowDeselect={false} onChange={(kind) => kind && onChange({ kind: kind as AssertionDraft['kind'] })} />
        <Group gap="xs" align="flex-start" style={{ flex: 1 }} wrap="wrap">
          <AssertionFields draft={draft} onChange={onChange} />
        </Group>
        <ActionIcon variant="subtle" color="red" mt={22} aria-label={`Remove assertion ${n}`} onClick={onRemove}>
          <IconTrash size={16} />
        </ActionIcon>
      </Group>
      {!checked.ok && (
        <Text size="xs" c="red" mt={4} role="alert">
          {checked.message}
        </Text>
      )}
    </Paper>
  );
}

function AssertionFields({ draft, onChange }: { draft: AssertionDraft; onChange: (patch: Partial<AssertionDraft>) => void }) {
  switch (draft.kind) {
    case 'status':
      return (
        <>
          <Select size="xs" w={130} label="Status" data={ExpectedStatus.options} value={draft.status} allowDeselect={false} onChange={(status) => status && onChange({ status: status as AssertionDraft['status'] })} />
          {draft.status === 'error' && (
            <Select size="xs" w={180} label="Error code" placeholder="any" clearable data={ErrorCode.options} value={draft.code || null} onChange={(code) => onChange({ code: (code ?? '') as AssertionDraft['code'] })} />
          )}
        </>
      );
    case 'path':
      return (
        <>
          <TextInput size="xs" w={200} ff="monospace" label="Path" description="$… on the result, or text" value={draft.path} onChange={(e) => onChange({ path: e.currentTarget.value })} />
          <Select size="xs" w={120} label="Operator" data={[...PATH_OPERATORS]} value={draft.operator} allowDeselect={false} onChange={(op) => op && onChange({ operator: op as PathOperator })} />
          {draft.operator === 'type' ? (
            <Select size="xs" w={120} label="Type" data={JSON_TYPES} value={draft.type} allowDeselect={false} onChange={(type) => type && onChange({ type: type as JsonType })} />
          ) : draft.operator !== 'exists' ? (
            <TextInput
              size="xs"
              style={{ flex: 1, minWidth: 160 }}
              ff="monospace"
              label="Value"
              description={draft.operator === 'matches' ? 'a regular expression' : 'JSON, or plain text; {{var}} allowed'}
              value={draft.value}
              onChange={(e) => onChange({ value: e.currentTarget.value })}
            />
          ) : null}
        </>
      );
    case 'schema':
      return (
        <>
          <Select
            size="xs"
            w={170}
            label="Applies to"
            data={[
              { value: 'structuredContent', label: 'structuredContent' },
              { value: 'result', label: 'the whole result' },
            ]}
            value={draft.of}
            allowDeselect={false}
            onChange={(of) => of && onChange({ of: of as AssertionDraft['of'] })}
          />
          <Textarea size="xs" style={{ flex: 1, minWidth: 220 }} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} label="Schema" autosize minRows={3} maxRows={12} value={draft.schema} onChange={(e) => onChange({ schema: e.currentTarget.value })} />
        </>
      );
    case 'latency':
      return <NumberInput size="xs" w={160} label="Latency below (ms)" min={1} value={draft.latencyMs} onChange={(v) => onChange({ latencyMs: String(v) })} />;
  }
}
