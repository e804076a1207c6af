import { Alert, Button, Code, Group, List, Modal, ScrollArea, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconShieldQuestion } from '@tabler/icons-react';
import type { ToolView } from './types';

export interface ConfirmInvokeDialogProps {
  opened: boolean;
  tool: ToolView;
  arguments: Record<string, unknown>;
  destructive: boolean;
  onConfirm: () => void;
  onClose: () => void;
}

/** Asks before a destructive call or one the policy wants confirmed, showing exactly what will be sent. */
export function ConfirmInvokeDialog({ opened, tool, arguments: args, destructive, onConfirm, onClose }: ConfirmInvokeDialogProps) {
  const needsPolicyConfirmation = tool.verdict.verdict === 'confirm';
  return (
    <Modal opened={opened} onClose={onClose} title={<Text fw={600}>Invoke {tool.title ?? tool.toolName}?</Text>} centered size="lg">
      <Stack gap="sm">
        {destructive && (
          <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title="Destructive tool">
            The server marks this tool as destructive: it may delete or overwrite data.
          </Alert>
        )}
        {needsPolicyConfirmation && (
          <Alert color="yellow" variant="light" icon={<IconShieldQuestion size={18} />} title="Policy asks for confirmation">
            <List size="sm" spacing={2}>
              {tool.verdict.reasons.map((reason) => (
                <List.Item key={reason}>{reason}</List.Item>
              ))}
            </List>
          </Alert>
        )}
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
