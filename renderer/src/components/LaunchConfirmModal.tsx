import { Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { CONFIRM_LAUNCH_STEP, type AppErrorShape } from '../../../shared/errors';

/** The command lines a refusal asks the operator to confirm, if that is what it is. */
export function launchesToConfirm(error: AppErrorShape): string[] | undefined {
  return error.step === CONFIRM_LAUNCH_STEP && error.details?.length ? error.details : undefined;
}

/**
 * Nothing is spawned until the operator has seen each exact command line (a stdio MCP server being
 * saved or imported from the browser, or declared in a workspace folder). Confirmed lines of a
 * folder are remembered for that folder.
 */
export function LaunchConfirmModal({
  lines,
  loading,
  onConfirm,
  onCancel,
  confirmLabel = 'Run and save',
}: {
  lines?: string[];
  loading: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  confirmLabel?: string;
}) {
  const many = (lines?.length ?? 0) > 1;
  return (
    <Modal opened={lines !== undefined} onClose={onCancel} title={many ? 'Run these commands?' : 'Run this command?'} size="lg" centered zIndex={400}>
      <Stack>
        <Text size="sm">This starts {many ? 'the following commands' : 'the following command'} on this machine, as your user, now and whenever the server connects:</Text>
        {lines?.map((line) => (
          <Code key={line} block aria-label="Command line" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
            {line}
          </Code>
        ))}
        <Text size="xs" c="dimmed">
          Only confirm a command you recognise. A page that tricks you into pasting a server configuration can run anything this way.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button color="orange" onClick={onConfirm} loading={loading}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
