import { Alert, Button, Group, Modal, ScrollArea, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconAppWindow, IconShieldQuestion } from '@tabler/icons-react';
import { JsonTree } from '../../components/JsonTree';
import { isMarkedDestructive, type ToolView } from './types';
import { VerdictReasons } from './VerdictBadge';

export interface ConfirmInvokeDialogProps {
  opened: boolean;
  tool: ToolView;
  arguments: Record<string, unknown>;
  /** Who chose this call when it was not the operator, e.g. "The app of get-time (clock)". */
  requestedBy?: string;
  onConfirm: () => void;
  onClose: () => void;
}

/**
 * Asks before a call the effective policy wants approved, naming the rules and showing exactly what
 * will be sent: every argument, in a tree that starts expanded. When something other than the
 * operator chose the call (an MCP App), it says so, since then the arguments are the caller's.
 */
export function ConfirmInvokeDialog({ opened, tool, arguments: args, requestedBy, onConfirm, onClose }: ConfirmInvokeDialogProps) {
  const destructive = isMarkedDestructive(tool);
  return (
    <Modal opened={opened} onClose={onClose} title={<Text fw={600}>Invoke {tool.title ?? tool.toolName}?</Text>} centered size="lg">
      <Stack gap="sm">
        {requestedBy && (
          <Alert color="grape" variant="light" icon={<IconAppWindow size={18} />} title={`Requested by ${requestedBy}`}>
            It chose this tool and these arguments; check them before you confirm.
          </Alert>
        )}
        {destructive && (
          <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title="Destructive tool">
            The server marks this tool as destructive: it may delete or overwrite data.
          </Alert>
        )}
        <Alert color="yellow" variant="light" icon={<IconShieldQuestion size={18} />} title="Policy for you: approval_required">
          <VerdictReasons verdict={tool.verdict} />
        </Alert>
        <div>
          <Text size="xs" fw={600} c="dimmed" tt="uppercase" mb={4}>
            Arguments
          </Text>
          <ScrollArea.Autosize mah={320} type="auto">
            <JsonTree value={args} label="Arguments" expandDepth={Number.POSITIVE_INFINITY} />
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
