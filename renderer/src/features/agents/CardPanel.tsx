import { Anchor, Badge, Button, Card, Group, Paper, SimpleGrid, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { IconCheck, IconLock, IconLockOpen, IconMessagePlus, IconRosette, IconTool, IconX } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { A2aCardReport, A2aSkillView } from '../../../../shared/a2a';
import { CopyButton } from '../../components/CopyButton';
import { JsonTree } from '../../components/JsonTree';
import { rawCardExtras } from './rawCard';

export interface CardPanelProps {
  report: A2aCardReport;
  /** The interface URL the backend talks to, to mark it among the card's interfaces. */
  endpoint?: string;
  onTryExample: (text: string) => void;
  onOpenTool: (skillId: string) => void;
}

function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label={title}>
      <Group justify="space-between" mb="sm">
        <Text size="xs" tt="uppercase" fw={700} c="dimmed">
          {title}
        </Text>
        {actions}
      </Group>
      {children}
    </Paper>
  );
}

function Capability({ label, on }: { label: string; on: boolean }) {
  return (
    <Badge
      size="lg"
      variant={on ? 'light' : 'outline'}
      color={on ? 'teal' : 'gray'}
      leftSection={on ? <IconCheck size={14} /> : <IconX size={14} />}
      aria-label={`${label}: ${on ? 'yes' : 'no'}`}
      tt="none"
    >
      {label}
    </Badge>
  );
}

function Modes({ label, modes }: { label: string; modes: string[] }) {
  if (modes.length === 0) return null;
  return (
    <Group gap={4}>
      <Text size="xs" c="dimmed" w={46}>
        {label}
      </Text>
      {modes.map((m) => (
        <Badge key={m} size="xs" variant="outline" color="gray" tt="none">
          {m}
        </Badge>
      ))}
    </Group>
  );
}

function KeyValue({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={140} fw={500} c="dimmed">
        {label}
      </Table.Th>
      <Table.Td>{children}</Table.Td>
    </Table.Tr>
  );
}

function requirementText(requirements: string[][]): string {
  if (requirements.length === 0) return 'No security requirement: callers need no credentials.';
  return `Callers must satisfy ${requirements.length > 1 ? 'one of: ' : ''}${requirements.map((set) => set.join(' + ') || '(nothing)').join(' or ')}.`;
}

/** The agent card as a readable page: identity, interfaces, capabilities, skills, security, and the raw JSON. */
export function CardPanel({ report, endpoint, onTryExample, onOpenTool }: CardPanelProps) {
  const { card } = report;
  const extras = rawCardExtras(report.raw);
  return (
    <Stack gap="md">
      <Paper withBorder radius="md" p="md">
        <Group gap="xs" mb={4}>
          <Title order={4}>{card.name}</Title>
          <Badge variant="light" tt="none">
            v{card.version}
          </Badge>
          <Badge variant="outline" color={card.protocolVersion === '1.0' ? 'indigo' : 'orange'}>
            A2A {card.protocolVersion}
          </Badge>
          {card.signed && (
            <Tooltip label="The card carries a signature">
              <Badge variant="light" color="teal" leftSection={<IconRosette size={12} />}>
                signed
              </Badge>
            </Tooltip>
          )}
        </Group>
        <Text size="sm" c="dimmed" mb="sm" style={{ whiteSpace: 'pre-wrap' }}>
          {card.description || 'No description.'}
        </Text>
        <Table variant="vertical" withRowBorders={false} verticalSpacing={4} fz="sm" aria-label="Card details">
          <Table.Tbody>
            <KeyValue label="Provider">
              {extras.provider ? (
                <Group gap={6}>
                  <Text size="sm">{extras.provider.organization ?? '—'}</Text>
                  {extras.provider.url && (
                    <Anchor href={extras.provider.url} target="_blank" rel="noopener noreferrer" size="sm">
                      {extras.provider.url}
                    </Anchor>
                  )}
                </Group>
              ) : (
                '—'
              )}
            </KeyValue>
            <KeyValue label="Card URL">
              <Group gap={4} wrap="nowrap">
                <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                  {report.cardUrl}
                </Text>
                <CopyButton value={report.cardUrl} label="Copy card URL" size="xs" />
              </Group>
            </KeyValue>
            {extras.documentationUrl && (
              <KeyValue label="Documentation">
                <Anchor href={extras.documentationUrl} target="_blank" rel="noopener noreferrer" size="sm">
                  {extras.documentationUrl}
                </Anchor>
              </KeyValue>
            )}
            <KeyValue label="Default modes">
              <Stack gap={4}>
                <Modes label="in" modes={extras.defaultInputModes} />
                <Modes label="out" modes={extras.defaultOutputModes} />
                {extras.defaultInputModes.length + extras.defaultOutputModes.length === 0 && '—'}
              </Stack>
            </KeyValue>
          </Table.Tbody>
        </Table>
      </Paper>

      <Section title="Capabilities">
        <Group gap="xs">
          <Capability label="Streaming" on={card.capabilities.streaming} />
          <Capability label="Push notifications" on={card.capabilities.pushNotifications} />
          <Capability label="Extended agent card" on={card.capabilities.extendedAgentCard} />
        </Group>
      </Section>

      <Section title={`Interfaces (${card.interfaces.length})`}>
        <Table verticalSpacing={6} fz="sm" aria-label="Interfaces">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>URL</Table.Th>
              <Table.Th w={130}>Binding</Table.Th>
              <Table.Th w={90}>Protocol</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {card.interfaces.map((i) => (
              <Table.Tr key={`${i.binding}-${i.url}`}>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                      {i.url}
                    </Text>
                    {endpoint === i.url && (
                      <Tooltip label="Tooldeck talks to the agent through this interface">
                        <Badge size="xs" color="teal" variant="light">
                          in use
                        </Badge>
                      </Tooltip>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Badge size="sm" variant="outline" color="gray" tt="none">
                    {i.binding || '?'}
                  </Badge>
                </Table.Td>
                <Table.Td ff="monospace">{i.protocolVersion || '—'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {card.interfaces.length === 0 && (
          <Text size="sm" c="dimmed">
            The card names no interface.
          </Text>
        )}
      </Section>

      <Section title={`Skills (${card.skills.length})`}>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="sm">
          {card.skills.map((skill) => (
            <SkillCard key={skill.id} skill={skill} modes={extras.skillModes[skill.id]} onTryExample={onTryExample} onOpenTool={() => onOpenTool(skill.id)} />
          ))}
        </SimpleGrid>
        {card.skills.length === 0 && (
          <Text size="sm" c="dimmed">
            The card lists no skills.
          </Text>
        )}
      </Section>

      <Section title="Security">
        {card.securitySchemes.length > 0 ? (
          <Table verticalSpacing={6} fz="sm" aria-label="Security schemes">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={160}>Scheme</Table.Th>
                <Table.Th w={130}>Type</Table.Th>
                <Table.Th>Detail</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {card.securitySchemes.map((s) => (
                <Table.Tr key={s.name}>
                  <Table.Td ff="monospace">{s.name}</Table.Td>
                  <Table.Td>
                    <Badge size="sm" variant="light" color="violet" tt="none" leftSection={<IconLock size={12} />}>
                      {s.type}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                      {s.detail}
                    </Text>
                    {s.scopes && s.scopes.length > 0 && (
                      <Text size="xs" c="dimmed">
                        scopes: {s.scopes.join(', ')}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : (
          <Group gap={6}>
            <IconLockOpen size={16} aria-hidden />
            <Text size="sm" c="dimmed">
              The card declares no security schemes.
            </Text>
          </Group>
        )}
        <Text size="sm" mt="xs">
          {requirementText(card.securityRequirements)}
        </Text>
      </Section>

      <Section title="Raw card" actions={<CopyButton value={JSON.stringify(report.raw, null, 2)} label="Copy card JSON" />}>
        <JsonTree value={report.raw} label="Raw agent card" expandDepth={1} />
      </Section>
    </Stack>
  );
}

function SkillCard({
  skill,
  modes,
  onTryExample,
  onOpenTool,
}: {
  skill: A2aSkillView;
  modes: { inputModes: string[]; outputModes: string[] } | undefined;
  onTryExample: (text: string) => void;
  onOpenTool: () => void;
}) {
  return (
    <Card withBorder radius="md" padding="sm" component="article" aria-label={`Skill ${skill.name}`}>
      <Group justify="space-between" wrap="nowrap" gap="xs" mb={4}>
        <div style={{ minWidth: 0 }}>
          <Text fw={700} size="sm" truncate="end">
            {skill.name}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {skill.id}
          </Text>
        </div>
        <Tooltip label="Open this skill in Tools">
          <Button size="compact-xs" variant="subtle" leftSection={<IconTool size={12} />} onClick={onOpenTool} aria-label={`Open ${skill.name} in Tools`}>
            Tool
          </Button>
        </Tooltip>
      </Group>
      <Text size="sm" mb={6}>
        {skill.description || (
          <Text span c="dimmed">
            No description.
          </Text>
        )}
      </Text>
      {skill.tags.length > 0 && (
        <Group gap={4} mb={6}>
          {skill.tags.map((tag) => (
            <Badge key={tag} size="xs" variant="light" color="gray" tt="none">
              {tag}
            </Badge>
          ))}
        </Group>
      )}
      {modes && (modes.inputModes.length > 0 || modes.outputModes.length > 0) && (
        <Stack gap={2} mb={6}>
          <Modes label="in" modes={modes.inputModes} />
          <Modes label="out" modes={modes.outputModes} />
        </Stack>
      )}
      {skill.examples.length > 0 && (
        <Stack gap={2}>
          <Text size="xs" c="dimmed">
            Examples
          </Text>
          {skill.examples.map((example) => (
            <Group key={example} gap={4} wrap="nowrap">
              <Text size="xs" ff="monospace" style={{ flex: 1, overflowWrap: 'anywhere' }}>
                {example}
              </Text>
              <Tooltip label="Put this in the conversation's message box">
                <Button
                  size="compact-xs"
                  variant="light"
                  leftSection={<IconMessagePlus size={12} />}
                  onClick={() => onTryExample(example)}
                  aria-label={`Try “${example}”`}
                >
                  Try
                </Button>
              </Tooltip>
            </Group>
          ))}
        </Stack>
      )}
    </Card>
  );
}
