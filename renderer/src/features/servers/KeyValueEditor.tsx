import { ActionIcon, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';

export interface KeyValueRow {
  key: string;
  value: string;
}

/** Rows of name/value pairs (headers, environment variables). */
export function KeyValueEditor({
  label,
  rows,
  onChange,
  keyPlaceholder,
  valuePlaceholder,
}: {
  label: string;
  rows: KeyValueRow[];
  onChange: (rows: KeyValueRow[]) => void;
  keyPlaceholder: string;
  valuePlaceholder: string;
}) {
  const update = (index: number, patch: Partial<KeyValueRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <Stack gap={6}>
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <Button size="compact-xs" variant="subtle" leftSection={<IconPlus size={14} />} onClick={() => onChange([...rows, { key: '', value: '' }])} aria-label={`Add ${label.toLowerCase()}`}>
          Add
        </Button>
      </Group>
      {rows.length === 0 && (
        <Text size="xs" c="dimmed">
          None
        </Text>
      )}
      {rows.map((row, index) => (
        <Group key={index} gap={6} wrap="nowrap">
          <TextInput size="xs" style={{ flex: 1 }} placeholder={keyPlaceholder} value={row.key} onChange={(e) => update(index, { key: e.currentTarget.value })} aria-label={`${label} name ${index + 1}`} ff="monospace" />
          <TextInput size="xs" style={{ flex: 2 }} placeholder={valuePlaceholder} value={row.value} onChange={(e) => update(index, { value: e.currentTarget.value })} aria-label={`${label} value ${index + 1}`} ff="monospace" />
          <ActionIcon variant="subtle" color="gray" onClick={() => onChange(rows.filter((_, i) => i !== index))} aria-label={`Remove ${label.toLowerCase()} ${index + 1}`}>
            <IconTrash size={14} />
          </ActionIcon>
        </Group>
      ))}
    </Stack>
  );
}

export const toRows = (record: Record<string, string> = {}): KeyValueRow[] => Object.entries(record).map(([key, value]) => ({ key, value }));
export const fromRows = (rows: KeyValueRow[]): Record<string, string> => Object.fromEntries(rows.filter((r) => r.key.trim()).map((r) => [r.key.trim(), r.value]));
