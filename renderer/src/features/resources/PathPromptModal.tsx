import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';

export interface PathPromptModalProps {
  title: string;
  label: string;
  description: string;
  placeholder: string;
  submitLabel: string;
  initial?: string;
  /** The reason `value` is refused, or undefined. */
  check: (value: string) => string | undefined;
  /** A message when the submit failed. */
  error?: string;
  busy?: boolean;
  onSubmit: (value: string) => void;
  onClose: () => void;
}

/** Asks for one path: a new file's name or a folder to open. */
export function PathPromptModal({ title, label, description, placeholder, submitLabel, initial = '', check, error, busy, onSubmit, onClose }: PathPromptModalProps) {
  const [value, setValue] = useState(initial);
  const [touched, setTouched] = useState(false);
  const problem = check(value.trim());
  const submit = () => {
    setTouched(true);
    if (!problem) onSubmit(value.trim());
  };
  return (
    <Modal opened onClose={onClose} title={title} centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Stack gap="md">
          <TextInput label={label} description={description} placeholder={placeholder} value={value} onChange={(e) => setValue(e.currentTarget.value)} error={(touched && problem) || error} data-autofocus spellCheck={false} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              {submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
