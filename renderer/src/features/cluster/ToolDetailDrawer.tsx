import { Accordion, Alert, Badge, Center, Code, Drawer, Group, Loader, ScrollArea, Stack, Table, Tabs, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { Condition } from '../../../../shared/kube';
import type { ToolRef } from '../../../../shared/kubeApi';
import { CopyButton } from '../../components/CopyButton';
import { JsonTree } from '../../components/JsonTree';
import { formatAge } from './formatAge';
import { PhaseBadge } from './PhaseBadge';
import { useKubeTRPC } from './useKubeTRPC';

/** One LanguageTool as the cluster holds it. */
export function ToolDetailDrawer({ tool, onClose }: { tool: ToolRef | undefined; onClose: () => void }) {
  return (
    <Drawer opened={!!tool} onClose={onClose} position="right" size="xl" title={tool ? `${tool.namespace}/${tool.name}` : ''}>
      {tool && <ToolDetail tool={tool} />}
    </Drawer>
  );
}

function ToolDetail({ tool }: { tool: ToolRef }) {
  const kube = useKubeTRPC();
  const detail = useQuery(kube.tool.queryOptions(tool));
  if (detail.error) return <Alert color="red">{detail.error.message}</Alert>;
  if (!detail.data) {
    return (
      <Center py="xl">
        <Loader aria-label="Loading the tool" />
      </Center>
    );
  }
  const d = detail.data;
  return (
    <Stack gap="md">
      <Group gap="sm">
        <PhaseBadge phase={d.phase} deleting={d.deleting} />
        <Text size="sm" c="dimmed">
          generation {d.generation ?? '-'} · observed {d.observedGeneration ?? '-'} · {d.deploymentMode} · age {formatAge(d.createdAt)}
        </Text>
      </Group>
      {d.endpoint && (
        <Text size="sm">
          Endpoint <Code>{d.endpoint}</Code>
        </Text>
      )}
      <Tabs defaultValue="conditions">
        <Tabs.List>
          <Tabs.Tab value="conditions">Conditions ({d.conditions.length})</Tabs.Tab>
          <Tabs.Tab value="tools">Discovered tools ({d.toolSchemas.length})</Tabs.Tab>
          <Tabs.Tab value="yaml">YAML</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="conditions" pt="sm">
          <ConditionsTable conditions={d.conditions} />
        </Tabs.Panel>
        <Tabs.Panel value="tools" pt="sm">
          {d.toolSchemas.length === 0 ? (
            <Text size="sm" c="dimmed">
              No tools discovered yet: discovery runs once the workload is ready.
            </Text>
          ) : (
            <Accordion multiple variant="separated">
              {d.toolSchemas.map((schema) => (
                <Accordion.Item key={schema.name} value={schema.name}>
                  <Accordion.Control>
                    <Text fw={600} size="sm">
                      {schema.name}
                    </Text>
                    {typeof schema.description === 'string' && (
                      <Text size="xs" c="dimmed" lineClamp={1}>
                        {schema.description}
                      </Text>
                    )}
                  </Accordion.Control>
                  <Accordion.Panel>
                    <JsonTree value={schema} label={`Schema of ${schema.name}`} expandDepth={1} />
                  </Accordion.Panel>
                </Accordion.Item>
              ))}
            </Accordion>
          )}
        </Tabs.Panel>
        <Tabs.Panel value="yaml" pt="sm">
          <Group justify="flex-end" mb={4}>
            <CopyButton value={d.yaml} label="Copy YAML" />
          </Group>
          <ScrollArea.Autosize mah="60vh">
            <Code block aria-label="Live object">
              {d.yaml}
            </Code>
          </ScrollArea.Autosize>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

const STATUS_COLORS: Record<Condition['status'], string> = { True: 'teal', False: 'red', Unknown: 'gray' };

function ConditionsTable({ conditions }: { conditions: Condition[] }) {
  if (conditions.length === 0) return <Text size="sm" c="dimmed">No conditions reported yet.</Text>;
  // The message goes under its reason, as kubectl describe prints it: in a column of its own it is squeezed to a few characters a line.
  return (
    <Table aria-label="Conditions" verticalSpacing="xs" fz="sm">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Type</Table.Th>
          <Table.Th>Status</Table.Th>
          <Table.Th>Reason and message</Table.Th>
          <Table.Th>Since</Table.Th>
          <Table.Th title="The generation the condition was observed at">Gen.</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {conditions.map((c) => (
          <Table.Tr key={c.type} style={{ verticalAlign: 'top' }}>
            <Table.Td fw={600}>{c.type}</Table.Td>
            <Table.Td>
              <Badge size="sm" variant="light" color={STATUS_COLORS[c.status]} miw="max-content">
                {c.status}
              </Badge>
            </Table.Td>
            <Table.Td>
              <Text size="sm" fw={500}>
                {c.reason}
              </Text>
              {c.message && (
                <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                  {c.message}
                </Text>
              )}
            </Table.Td>
            <Table.Td title={c.lastTransitionTime} style={{ whiteSpace: 'nowrap' }}>
              {formatAge(c.lastTransitionTime)} ago
            </Table.Td>
            <Table.Td>{c.observedGeneration ?? '-'}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
