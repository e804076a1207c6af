import { Alert, Badge, Box, Button, Group, Modal, ScrollArea, Stack, Table, Text, Textarea } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { ApplyConflict, ApplyResult, DiffLine, DryRunResult } from '../../../../shared/kubeApi';
import { useKubeTRPC } from './useKubeTRPC';

const EXAMPLE = `apiVersion: langop.io/v1alpha1
kind: LanguageTool
metadata:
  name: my-tool
  namespace: default
spec:
  image: registry.example/my-tool:1
  port: 8080
`;

/** Paste YAML, see what the server would make of it, apply it; a field another manager owns is shown before anything is forced. */
export function ApplyYamlModal({ opened, onClose, initialYaml = EXAMPLE }: { opened: boolean; onClose: () => void; initialYaml?: string }) {
  const kube = useKubeTRPC();
  const [yaml, setYaml] = useState(initialYaml);
  const [preview, setPreview] = useState<DryRunResult>();
  const [applied, setApplied] = useState<ApplyResult>();
  const dryRun = useMutation(kube.dryRun.mutationOptions({ onSuccess: setPreview }));
  const apply = useMutation(kube.applyYaml.mutationOptions({ onSuccess: setApplied }));
  const error = dryRun.error?.message ?? apply.error?.message;
  const edit = (text: string) => {
    setYaml(text);
    setPreview(undefined);
    setApplied(undefined);
  };
  const conflict = applied && !applied.ok ? applied.conflict : preview && !preview.ok ? preview.conflict : undefined;

  return (
    <Modal opened={opened} onClose={onClose} title="Apply YAML" size="xl">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          LanguageTools and LanguageAgents, applied server-side as field manager tooldeck. A dry run shows the change first; nothing is written until Apply.
        </Text>
        <Textarea label="YAML" value={yaml} onChange={(e) => edit(e.currentTarget.value)} autosize minRows={8} maxRows={18} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }} spellCheck={false} />
        <Group justify="flex-end">
          <Button variant="default" loading={dryRun.isPending} disabled={!yaml.trim()} onClick={() => dryRun.mutate({ yaml })}>
            Dry run
          </Button>
          <Button loading={apply.isPending && !apply.variables?.force} disabled={!yaml.trim()} onClick={() => apply.mutate({ yaml, force: false })}>
            Apply
          </Button>
        </Group>
        {error && <Alert color="red">{error}</Alert>}
        {conflict && <ConflictPanel conflict={conflict} forcing={apply.isPending && !!apply.variables?.force} onForce={() => apply.mutate({ yaml, force: true })} />}
        {applied?.ok && (
          <Alert color="teal" title="Applied">
            {applied.objects.map((o) => `${o.kind} ${o.namespace}/${o.name} ${o.action}`).join(', ')}
          </Alert>
        )}
        {preview?.ok &&
          !applied &&
          preview.objects.map((o) => (
            <Stack key={`${o.kind}/${o.namespace}/${o.name}`} gap={4}>
              <Group gap="xs">
                <Text fw={600} size="sm">
                  {o.kind} {o.namespace}/{o.name}
                </Text>
                <Badge size="sm" variant="light" color={o.action === 'unchanged' ? 'gray' : o.action === 'created' ? 'teal' : 'blue'}>
                  would be {o.action}
                </Badge>
              </Group>
              <DiffView lines={o.diff} label={`Diff of ${o.kind} ${o.namespace}/${o.name}`} />
            </Stack>
          ))}
      </Stack>
    </Modal>
  );
}

function ConflictPanel({ conflict, forcing, onForce }: { conflict: ApplyConflict; forcing: boolean; onForce: () => void }) {
  return (
    <Alert color="orange" title={`Conflict on ${conflict.kind} ${conflict.namespace}/${conflict.name}`}>
      <Stack gap="xs">
        <Text size="sm">Other field managers own these fields. Force apply makes tooldeck their owner; their next apply may take them back.</Text>
        <Table aria-label="Conflicting fields" fz="sm" verticalSpacing={4}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Field manager</Table.Th>
              <Table.Th>Field</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {conflict.conflicts.map((c) => (
              <Table.Tr key={`${c.manager}${c.field}`}>
                <Table.Td>{c.manager}</Table.Td>
                <Table.Td ff="monospace">{c.field}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {conflict.conflicts.length === 0 && <Text size="sm">{conflict.message}</Text>}
        <Group>
          <Button color="orange" loading={forcing} onClick={onForce}>
            Force apply
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

const CONTEXT_LINES = 3;

const LINE_COLORS: Record<DiffLine['op'], string | undefined> = {
  '+': 'var(--mantine-color-teal-light)',
  '-': 'var(--mantine-color-red-light)',
  ' ': undefined,
};

/** Changed lines with a few lines of context; long unchanged runs fold into one line. */
function DiffView({ lines, label }: { lines: DiffLine[]; label: string }) {
  const near = lines.map((_, i) => lines.slice(Math.max(0, i - CONTEXT_LINES), i + CONTEXT_LINES + 1).some((l) => l.op !== ' '));
  if (!near.some(Boolean)) return <Text size="sm" c="dimmed">No change.</Text>;
  const rows: Array<DiffLine | { folded: number }> = [];
  lines.forEach((line, i) => {
    if (near[i]) rows.push(line);
    else {
      const last = rows.at(-1);
      if (last && 'folded' in last) last.folded++;
      else rows.push({ folded: 1 });
    }
  });
  return (
    <ScrollArea.Autosize mah={320}>
      <Box component="pre" aria-label={label} m={0} p="xs" fz={12} ff="monospace" style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 6 }}>
        {rows.map((row, i) =>
          'folded' in row ? (
            <div key={i} style={{ color: 'var(--mantine-color-dimmed)' }}>
              {`  … ${row.folded} unchanged line${row.folded === 1 ? '' : 's'}`}
            </div>
          ) : (
            <div key={i} style={{ background: LINE_COLORS[row.op] }}>
              {row.op} {row.text}
            </div>
          ),
        )}
      </Box>
    </ScrollArea.Autosize>
  );
}
