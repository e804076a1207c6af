import { Alert, Button, Center, Code, Group, Loader, Modal, ScrollArea, Stack, Text } from '@mantine/core';
import { IconShieldQuestion } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { withoutHold } from '../../../../shared/policy';
import type { ToolView } from '../../../../shared/registry';
import { useTRPC } from '../../rpc/client';
import { VerdictReasons } from '../invoke/VerdictBadge';
import { appErrorOf } from '../../rpc/appError';
import { ToolDiffCard } from './DefinitionDiffView';
import { useLockDecisions } from './useLock';

export interface ReviewHoldDialogProps {
  opened: boolean;
  tool: ToolView;
  arguments: Record<string, unknown>;
  /** Call once with this definition: the pipeline runs it only if the hash is still the current one. */
  onConfirm: (reviewedHash: string) => void;
  onClose: () => void;
}

/**
 * Before a tool the lockfile holds can be called from the console: the diff against the approved
 * definition (or the whole definition of a new tool), every other rule that applies, and the choice
 * to approve it in tooldeck.lock or to call this very definition once.
 */
export function ReviewHoldDialog({ opened, tool, arguments: args, onConfirm, onClose }: ReviewHoldDialogProps) {
  const trpc = useTRPC();
  const hold = tool.verdict.hold;
  const source = `${tool.source.kind}:${tool.source.name}`;
  const diff = useQuery({ ...trpc.lock.compare.queryOptions({ source, from: 'approved', to: 'current' }), enabled: opened && !!hold, retry: false });
  const { approve } = useLockDecisions();
  if (!hold) return null;
  const change = diff.data?.tools.find((candidate) => candidate.name === tool.toolName);
  const others = withoutHold(tool.verdict);
  return (
    <Modal opened={opened} onClose={onClose} title={<Text fw={600}>Review {tool.toolName} before calling it</Text>} centered size="xl">
      <Stack gap="sm">
        <Alert color="orange" variant="light" icon={<IconShieldQuestion size={18} />} title={`Held for review: ${hold.state}`}>
          <Text size="sm">{hold.reason}.</Text>
          <Text size="xs" c="dimmed" mt={4}>
            Agents do not get this tool until its definition is approved in tooldeck.lock. Calling it here runs exactly the definition shown below; if the server changes it again, the call is refused.
          </Text>
        </Alert>
        {diff.error ? (
          <Alert color="red">{appErrorOf(diff.error).message}</Alert>
        ) : !diff.data ? (
          <Center py="md">
            <Loader size="sm" aria-label="Loading the diff" />
          </Center>
        ) : change ? (
          <ScrollArea.Autosize mah={420} type="auto">
            <ToolDiffCard tool={change} />
          </ScrollArea.Autosize>
        ) : (
          <Text size="sm" c="dimmed">
            No difference from the approved definition is known here.
          </Text>
        )}
        {others.rules.length > 0 && (
          <Alert color="yellow" variant="light" title="Other rules for this tool">
            <VerdictReasons verdict={others} />
          </Alert>
        )}
        <div>
          <Text size="xs" fw={600} c="dimmed" tt="uppercase" mb={4}>
            Arguments
          </Text>
          <ScrollArea.Autosize mah={160} type="auto">
            <Code block>{JSON.stringify(args, null, 2)}</Code>
          </ScrollArea.Autosize>
        </div>
        <Text size="xs" c="dimmed" ff="monospace">
          {hold.hash}
        </Text>
        <Group justify="space-between" mt="xs">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Group gap="xs">
            <Button
              color="teal"
              variant="light"
              loading={approve.isPending}
              onClick={() => approve.mutate({ source, tools: [tool.toolName], hashes: { [tool.toolName]: hold.hash } }, { onSuccess: onClose })}
            >
              Approve in tooldeck.lock
            </Button>
            <Button color="orange" onClick={() => onConfirm(hold.hash)} data-autofocus>
              Call this definition once
            </Button>
          </Group>
        </Group>
      </Stack>
    </Modal>
  );
}
