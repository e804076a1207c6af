import { Button, Group, Modal, Stack, Text } from '@mantine/core';

export interface ConflictDialogProps {
  path: string;
  message: string;
  busy: boolean;
  onReload: () => void;
  onOverwrite: () => void;
  onClose: () => void;
}

/** The file changed on disk since the draft began: take the disk's version or write the draft over it. */
export function ConflictDialog({ path, message, busy, onReload, onOverwrite, onClose }: ConflictDialogProps) {
  return (
    <Modal opened onClose={onClose} title={`${path} changed on disk`} centered>
      <Stack gap="md">
        <Text size="sm">{message}</Text>
        <Text size="sm" c="dimmed">
          Your draft is kept until you choose. Use Diff after reloading elsewhere, or copy your text first if you want to merge by hand.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Keep editing
          </Button>
          <Button variant="light" color="gray" onClick={onReload} disabled={busy}>
            Reload from disk
          </Button>
          <Button color="red" onClick={onOverwrite} loading={busy}>
            Overwrite
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
