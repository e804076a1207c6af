import { Alert, Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { useState } from 'react';

/** The collection's file as written, comments included; saved as is once it validates. */
export function YamlEditor({ text, saving, error, onSave }: { text: string; saving: boolean; error?: string; onSave: (text: string) => void }) {
  const [value, setValue] = useState(text);
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        The collection file. Literal secrets are moved to the secret store when saved; comments are kept.
      </Text>
      <Textarea
        aria-label="Collection YAML"
        value={value}
        onChange={(e) => setValue(e.currentTarget.value)}
        autosize
        minRows={14}
        maxRows={40}
        spellCheck={false}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
      />
      {error && (
        <Alert color="red" variant="light" title="Not saved">
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {error}
          </Text>
        </Alert>
      )}
      <Group>
        <Button size="xs" leftSection={<IconDeviceFloppy size={14} />} loading={saving} disabled={value === text} onClick={() => onSave(value)}>
          Save YAML
        </Button>
        <Button size="xs" variant="subtle" disabled={value === text} onClick={() => setValue(text)}>
          Revert
        </Button>
      </Group>
    </Stack>
  );
}
