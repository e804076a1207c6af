import { Accordion, Alert, Badge, Button, Center, Code, Drawer, Group, Loader, ScrollArea, Stack, Table, Tabs, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ClusterToolDetail } from '../../../../shared/kubeApi';
import { DefinitionDiffView } from '../lock/DefinitionDiffView';
import { RevisionHistory } from '../lock/DefinitionHistoryPanel';
import { RevealedText } from '../lock/RevealedText';
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
  const [tab, setTab] = useState<string | null>(null);
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
      {d.definitionsChanged && <DefinitionsChanged tool={tool} detail={d} />}
      <Tabs value={tab ?? (d.definitionsChanged ? 'tools' : 'conditions')} onChange={setTab}>
        <Tabs.List>
          <Tabs.Tab value="conditions">Conditions ({d.conditions.length})</Tabs.Tab>
          <Tabs.Tab value="tools">Discovered tools ({d.toolSchemas.length})</Tabs.Tab>
          {d.definitionsSource && <Tabs.Tab value="history">History</Tabs.Tab>}
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
                        <RevealedText text={schema.description} />
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
        {d.definitionsSource && (
          <Tabs.Panel value="history" pt="sm">
            {/* Read only when opened: the revisions this console recorded of the tool's discovered definitions, the approved set marked. */}
            {tab === 'history' && (
              <RevisionHistory
                source={d.definitionsSource}
                version={`${d.definitions?.hash ?? ''}:${d.definitions?.approvedHash ?? ''}`}
                approval={{ setHash: d.definitions?.approvedHash }}
                emptyText="No revisions yet: they are recorded once the tool has discovered its definitions."
              />
            )}
          </Tabs.Panel>
        )}
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

/** The condition, the diff against the approved definitions, and the approval (an annotation written with server-side apply). */
function DefinitionsChanged({ tool, detail }: { tool: ToolRef; detail: ClusterToolDetail }) {
  const kube = useKubeTRPC();
  const queryClient = useQueryClient();
  const approve = useMutation(
    kube.approveDefinitions.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: kube.tool.queryKey(tool) });
        notifications.show({ color: 'teal', title: 'Definitions approved', message: `${tool.namespace}/${tool.name}: agents get its endpoint again once the reconciler sees the approval.` });
      },
      onError: (error) => notifications.show({ color: 'red', title: 'Not approved', message: error.message }),
    }),
  );
  const condition = detail.conditions.find((c) => c.type === 'DefinitionsChanged');
  const hash = detail.definitions?.hash;
  return (
    <Alert color="orange" title="Tool definitions changed" aria-label="Definitions changed">
      <Stack gap="sm">
        <Text size="sm">{condition?.message}</Text>
        <Text size="xs" c="dimmed">
          Referencing agents do not get this tool in their config.yaml until the new definitions are approved. Approving writes the annotation{' '}
          <Code>langop.io/approved-definitions</Code> with server-side apply.
        </Text>
        {detail.definitionsDiff ? (
          <ScrollArea.Autosize mah="45vh">
            <DefinitionDiffView diff={detail.definitionsDiff} />
          </ScrollArea.Autosize>
        ) : (
          <Text size="sm" c="dimmed">
            The approved definitions were not seen here (approved elsewhere, or by hand): only the hash {detail.definitions?.approvedHash ?? 'none'} is known. The discovered tools are listed under Discovered tools.
          </Text>
        )}
        <Group justify="flex-end">
          <Button color="orange" disabled={!hash} loading={approve.isPending} onClick={() => hash && approve.mutate({ ...tool, hash })}>
            Approve these definitions
          </Button>
        </Group>
      </Stack>
    </Alert>
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
