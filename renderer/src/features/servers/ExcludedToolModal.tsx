import { Alert, Anchor, Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconFilterOff } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import type { McpTool } from '../../../../shared/mcp';
import { useTRPC } from '../../rpc/client';
import { useNavigate } from '../../shell/useSection';
import { readableError } from './readableError';

/**
 * A tool its server lists but the registry leaves out: says why, where to change it, and what to
 * add. It offers no way to call the tool directly. Every call goes through the registry's pipeline
 * (validation, policy, recording), and the pipeline only knows registry entries; the workspace's
 * `tool_filter.include` decides which of a server's tools become entries (and Orloj Tool resources
 * that policy can name). Calling an excluded tool would mean going around that decision, so the
 * way to call it is to admit it: "Admit to the registry" adds it to that list in the server's file
 * (resources.admitTool, comments kept), the workspace is reconciled, and the tool is then invoked
 * from Tools like any other, under the workspace's ToolPermissions.
 */
export function ExcludedToolModal({ server, tool, exclusion, onClose }: { server: string; tool?: McpTool; exclusion?: { reason: string; file?: string }; onClose: () => void }) {
  const navigate = useNavigate();
  const trpc = useTRPC();
  const admit = useMutation(
    trpc.resources.admitTool.mutationOptions({
      onSuccess: (result) => {
        notifications.show({
          title: `${tool?.name ?? 'The tool'} admitted`,
          message: `Added to tool_filter.include in ${result.file}. Once the workspace is reconciled it is ${result.registryName} in Tools, under the workspace's policy.`,
        });
        onClose();
      },
    }),
  );
  return (
    <Modal opened={tool !== undefined} onClose={onClose} title={`${tool?.name ?? ''} is not in the registry`} size="lg" centered>
      {tool && exclusion && (
        <Stack>
          <Alert color="gray" variant="light" icon={<IconFilterOff size={18} />}>
            <Stack gap="xs">
              <Text size="sm">
                {server} lists <Code>{tool.name}</Code>, but it is {exclusion.reason}.
              </Text>
              <Text size="sm">
                It cannot be called until the filter admits it: every call goes through the registry (argument validation, policy, history), and a tool the
                filter leaves out has no registry entry, so it cannot be invoked, granted to agents or found in search. Add it to{' '}
                <Code>tool_filter.include</Code>
                {exclusion.file ? (
                  <>
                    {' '}
                    in <Code>{exclusion.file}</Code>
                  </>
                ) : null}
                ; when the file is saved, the workspace is reconciled and the tool becomes <Code>{`mcp:${server}.${tool.name}`}</Code>, under the
                workspace&apos;s policy like every other tool.
                {exclusion.file ? ' Admit to the registry makes that edit for you, keeping the file’s comments.' : null}
              </Text>
            </Stack>
          </Alert>
          <Code block aria-label="What to add">{`tool_filter:\n  include:\n    - ${tool.name}`}</Code>
          {admit.error && (
            <Alert color="red" variant="light" title="Not admitted">
              {readableError(admit.error)}
            </Alert>
          )}
          {tool.description && (
            <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
              {tool.description}
            </Text>
          )}
          <Group justify="flex-end">
            {exclusion.file && (
              <Anchor
                component="button"
                type="button"
                onClick={() => {
                  onClose();
                  navigate('resources', { file: exclusion.file! });
                }}
              >
                Open {exclusion.file}
              </Anchor>
            )}
            <Button variant="default" onClick={onClose}>
              Close
            </Button>
            {exclusion.file && (
              <Button loading={admit.isPending} onClick={() => admit.mutate({ server, tool: tool.name })}>
                Admit to the registry
              </Button>
            )}
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
