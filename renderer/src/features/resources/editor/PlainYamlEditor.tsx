import { Group, ScrollArea, Text, Textarea } from '@mantine/core';
import { getHotkeyHandler } from '@mantine/hooks';
import type { YamlDiffProps, YamlEditorProps } from './YamlEditorProps';

const monospace = { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 'var(--mantine-font-size-xs)', lineHeight: 1.6 };

/** A monospace textarea: the YAML editor where Monaco cannot load. */
export function PlainYamlEditor({ value, onChange, label, onSave, diagnostics }: YamlEditorProps) {
  return (
    <Textarea
      aria-label={label}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      onKeyDown={getHotkeyHandler([['mod+S', onSave]])}
      error={diagnostics.some((d) => d.severity === 'error') || undefined}
      rows={20}
      resize="vertical"
      spellCheck={false}
      autoCapitalize="off"
      autoCorrect="off"
      styles={{ input: monospace }}
    />
  );
}

/** The saved text and the draft side by side, where Monaco's diff editor cannot load. */
export function PlainYamlDiff({ original, modified }: YamlDiffProps) {
  return (
    <Group grow align="flex-start" gap="xs">
      {[
        ['Saved', original],
        ['Draft', modified],
      ].map(([title, text]) => (
        <div key={title}>
          <Text size="xs" c="dimmed" fw={600}>
            {title}
          </Text>
          <ScrollArea.Autosize mah={480}>
            <pre aria-label={`${title} text`} style={{ ...monospace, margin: 0 }}>
              {text}
            </pre>
          </ScrollArea.Autosize>
        </div>
      ))}
    </Group>
  );
}
