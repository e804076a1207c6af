import { Alert, Anchor, Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { IconFilterOff } from '@tabler/icons-react';
import type { McpTool } from '../../../../shared/mcp';
import { useNavigate } from '../../shell/useSection';

/**
 * A tool its server lists but the registry leaves out: says why, and where to change it. It is not
 * callable from here — every call goes through the registry's pipeline, which only knows the tools
 * the workspace lets in.
 */
export function ExcludedToolModal({ server, tool, exclusion, onClose }: { server: string; tool?: McpTool; exclusion?: { reason: string; file?: string }; onClose: () => void }) {
  const navigate = useNavigate();
  return (
    <Modal opened={tool !== undefined} onClose={onClose} title={`${tool?.name ?? ''} is not in the registry`} size="lg" centered>
      {tool && exclusion && (
        <Stack>
          <Alert color="gray" variant="light" icon={<IconFilterOff size={18} />}>
            <Text size="sm">
              {server} lists <Code>{tool.name}</Code>, but it is {exclusion.reason}. Tools outside the registry cannot be invoked, granted to agents or found
              in search; to use it, add it to <Code>tool_filter.include</Code>.
            </Text>
          </Alert>
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
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
