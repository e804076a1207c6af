import { ActionIcon, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import type { CaptureDraft } from './requestDraft';

/** `variable: $.path` pairs: values from this request's result that later requests use as `{{variable}}`. */
export function CapturesEditor({ value, onChange }: { value: CaptureDraft[]; onChange: (value: CaptureDraft[]) => void }) {
  const update = (index: number, patch: Partial<CaptureDraft>) => onChange(value.map((c, i) => (i === index ? { ...c, ...patch } : c)));
  return (
    <Stack gap={6} role="group" aria-label="Captures">
      {value.length === 0 && (
        <Text size="sm" c="dimmed">
          Nothing captured for later requests.
        </Text>
      )}
      {value.map((capture, index) => (
        <Group key={index} gap="xs" wrap="nowrap">
          <TextInput size="xs" w={180} ff="monospace" aria-label={`Capture ${index + 1} variable`} placeholder="variable" value={capture.variable} onChange={(e) => update(index, { variable: e.currentTarget.value })} />
          <Text size="sm" c="dimmed" aria-hidden>
            ←
          </Text>
          <TextInput size="xs" style={{ flex: 1 }} ff="monospace" aria-label={`Capture ${index + 1} path`} placeholder="$.structuredContent.id" value={capture.path} onChange={(e) => update(index, { path: e.currentTarget.value })} />
          <ActionIcon variant="subtle" color="red" aria-label={`Remove capture ${index + 1}`} onClick={() => onChange(value.filter((_, i) => i !== index))}>
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
      <Group>
        <Button variant="light" size="xs" leftSection={<IconPlus size={14} />} onClick={() => onChange([...value, { variable: '', path: '$.' }])}>
          Add capture
        </Button>
      </Group>
    </Stack>
  );
}
