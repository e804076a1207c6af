import { Anchor, Badge, Group, Table, Text, Tooltip } from '@mantine/core';
import type { ClusterToolRow } from '../../../../shared/kubeApi';
import { formatAge } from './formatAge';
import { PhaseBadge } from './PhaseBadge';

export interface InventoryTableProps {
  tools: ClusterToolRow[];
  showNamespace: boolean;
  onOpen: (tool: ClusterToolRow) => void;
  now?: number;
}

export function InventoryTable({ tools, showNamespace, onOpen, now }: InventoryTableProps) {
  return (
    <Table aria-label="Tool inventory" highlightOnHover verticalSpacing="xs" fz="sm">
      <Table.Thead>
        <Table.Tr>
          {showNamespace && <Table.Th>Namespace</Table.Th>}
          <Table.Th>Tool</Table.Th>
          <Table.Th>Phase</Table.Th>
          <Table.Th>Endpoint</Table.Th>
          <Table.Th>Tools</Table.Th>
          <Table.Th>Agents</Table.Th>
          <Table.Th>Age</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {tools.map((tool) => (
          <Table.Tr key={`${tool.namespace}/${tool.name}`}>
            {showNamespace && <Table.Td>{tool.namespace}</Table.Td>}
            <Table.Td>
              <Anchor component="button" type="button" fw={600} fz="sm" onClick={() => onOpen(tool)}>
                {tool.name}
              </Anchor>
              {tool.deploymentMode === 'sidecar' && (
                <Text span c="dimmed" fz="xs" ml={6}>
                  sidecar
                </Text>
              )}
            </Table.Td>
            <Table.Td>
              <Group gap={4} wrap="nowrap">
                <PhaseBadge phase={tool.phase} deleting={tool.deleting} />
                {tool.definitionsChanged && (
                  <Tooltip label="Its discovered tool definitions differ from the approved ones: agents do not get its endpoint until they are approved">
                    <Badge size="sm" color="orange" variant="filled" style={{ cursor: 'pointer' }} onClick={() => onOpen(tool)}>
                      definitions changed
                    </Badge>
                  </Tooltip>
                )}
              </Group>
            </Table.Td>
            <Table.Td>
              <Text ff="monospace" fz="xs" c={tool.endpoint ? undefined : 'dimmed'}>
                {tool.endpoint ?? '-'}
              </Text>
            </Table.Td>
            <Table.Td>{tool.toolCount}</Table.Td>
            <Table.Td>{tool.agents.join(', ') || '-'}</Table.Td>
            <Table.Td>{formatAge(tool.createdAt, now)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
