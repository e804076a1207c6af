import { CloseButton, TextInput, type TextInputProps } from '@mantine/core';

export interface ClearableTextInputProps extends Omit<TextInputProps, 'value' | 'onChange' | 'rightSection' | 'rightSectionPointerEvents'> {
  value: string;
  /** Called with the new text, and with '' when the clear button is pressed. */
  onValueChange: (value: string) => void;
  /** The clear button's accessible name, e.g. "Clear search". */
  clearLabel: string;
}

/**
 * A search or filter box with a clear button while it holds text. Every search box of the console is
 * one of these, so they all clear the same way. Mantine's right section ignores the pointer unless
 * told otherwise, which would make the button look clickable and do nothing.
 */
export function ClearableTextInput({ value, onValueChange, clearLabel, ...props }: ClearableTextInputProps) {
  return (
    <TextInput
      {...props}
      value={value}
      onChange={(e) => onValueChange(e.currentTarget.value)}
      rightSectionPointerEvents="all"
      rightSection={value ? <CloseButton size="sm" aria-label={clearLabel} onClick={() => onValueChange('')} /> : undefined}
    />
  );
}
