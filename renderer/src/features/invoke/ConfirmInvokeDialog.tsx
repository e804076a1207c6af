import { Alert, Button, Code, Group, Modal, ScrollArea, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconShieldQuestion } from '@tabler/icons-react';
import { isMarkedDestructive, type ToolView } from './types';
import { VerdictReasons } from './VerdictBadge';

export interface ConfirmInvokeDialogProps {
  opened: boolean;
  tool: ToolView;
  arguments: Record<string, unknown>;
  onConfirm: () => void;
  onClose: () => void;
}

/** Asks before a call the effective policy wants approved, naming the rules and showing exactly what will be sent. */
export function ConfirmInvokeDialog({ opened, tool, arguments: args, onConfirm, onClose }: ConfirmInvokeDialogProps) {
  const destructive = isMarkedDestructive(tool);
  return (
    <Modal opened={opened} onClose={onClose} title={<Text fw={600}>Invoke {tool.title ?? tool.toolName}?</Text>} centered size="lg">
      <Stack gap="sm">
        {destructive && (
          <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title="Destructive tool">
            The server marks this tool as destructive: it may delete or overwrite data.
          </Alert>
        )}
        <Alert color="yellow" variant="light" icon={<IconShieldQuestion size={18} />} title="Needs approval">
          <VerdictReasons verdict={tool.verdict} />
        </Alert>
        <div>
          <Text size="xs" fw={600} c="dimmed" tt="uppercase" mb={4}>
            Arguments
          </Text>
          <ScrollArea.Autosize mah={240} type="auto">
            <Code block>{JSON.stringify(args, null, 2)}</Code>
          </ScrollArea.Autosize>
        </div>
        <Group justify="flex-end" mt="xs">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color={destructive ? 'red' : 'yellow'} onClick={onConfirm} data-autofocus>
            Confirm and invoke
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
