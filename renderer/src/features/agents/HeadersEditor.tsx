import { ActionIcon, Button, Checkbox, Group, PasswordInput, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import type { ChangeEvent } from 'react';
import type { HeaderRow } from './agentDraft';
import { MONO_INPUT } from './display';

/** Custom HTTP headers sent with every request to the agent; secret ones live in the secret store. */
export function HeadersEditor({ rows, onChange }: { rows: HeaderRow[]; onChange: (rows: HeaderRow[]) => void }) {
  const update = (index: number, patch: Partial<HeaderRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <Stack gap={6}>
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          Custom headers
        </Text>
        <Button
          size="compact-xs"
          variant="subtle"
          leftSection={<IconPlus size={14} />}
          onClick={() => onChange([...rows, { name: '', value: '', secret: false }])}
          aria-label="Add header"
        >
          Add
        </Button>
      </Group>
      {rows.length === 0 && (
        <Text size="xs" c="dimmed">
          None
        </Text>
      )}
      {rows.map((row, index) => {
        const valueProps = {
          size: 'xs' as const,
          style: { flex: 2 },
          placeholder: row.secret && row.stored ? 'stored — leave empty to keep' : 'value',
          value: row.value,
          onChange: (e: ChangeEvent<HTMLInputElement>) => update(index, { value: e.currentTarget.value }),
          'aria-label': `Header value ${index + 1}`,
        };
        return (
          <Group key={index} gap={6} wrap="nowrap">
            <TextInput
              size="xs"
              style={{ flex: 1 }}
              placeholder="X-Header-Name"
              value={row.name}
              onChange={(e) => update(index, { name: e.currentTarget.value })}
              aria-label={`Header ${index + 1}`}
              styles={MONO_INPUT}
            />
            {row.secret ? <PasswordInput {...valueProps} /> : <TextInput {...valueProps} styles={MONO_INPUT} />}
            <Tooltip label="Keep the value in the secret store and mask it in the transcript">
              <Checkbox
                size="xs"
                label="Secret"
                checked={row.secret}
                onChange={(e) => update(index, { secret: e.currentTarget.checked })}
                aria-label={`Header ${index + 1} is secret`}
              />
            </Tooltip>
            <ActionIcon variant="subtle" color="gray" onClick={() => onChange(rows.filter((_, i) => i !== index))} aria-label={`Remove header ${index + 1}`}>
              <IconTrash size={14} />
            </ActionIcon>
          </Group>
        );
      })}
    </Stack>
  );
}
