import { Textarea } from '@mantine/core';
import { getHotkeyHandler } from '@mantine/hooks';
import type { JsonEditorProps } from './JsonEditorProps';

/** A monospace textarea: the JSON editor where Monaco cannot load. */
export function PlainJsonEditor({ value, onChange, label, onSubmit, invalid, minHeight = 160 }: JsonEditorProps) {
  return (
    <Textarea
      aria-label={label}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      onKeyDown={onSubmit ? getHotkeyHandler([['mod+Enter', onSubmit]]) : undefined}
      error={invalid || undefined}
      rows={Math.max(6, Math.round(minHeight / 20))}
      resize="vertical"
      spellCheck={false}
      autoCapitalize="off"
      autoCorrect="off"
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 'var(--mantine-font-size-xs)', lineHeight: 1.6 } }}
    />
  );
}
