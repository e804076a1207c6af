import { Badge, Code, Group, Paper, ScrollArea, Stack, Tabs, Text, Title, Tooltip } from '@mantine/core';
import { IconShieldCheck, IconShieldLock, IconShieldQuestion } from '@tabler/icons-react';
import { JsonTree } from '../../components/JsonTree';
import { SchemaTree } from '../../components/SchemaTree';
import { InvokePanel } from '../invoke/InvokePanel';
import { ToolMetricsChart } from '../metrics/ToolMetricsChart';
import type { ToolView } from '../invoke/types';
import { AnnotationBadges } from './AnnotationBadges';
import { McpIconImage } from '../../components/McpIconImage';

const VERDICT = {
  allow: { color: 'teal', icon: IconShieldCheck, label: 'Allowed' },
  confirm: { color: 'yellow', icon: IconShieldQuestion, label: 'Needs confirmation' },
  deny: { color: 'red', icon: IconShieldLock, label: 'Denied by policy' },
} as const;

export function ToolDetail({ tool }: { tool: ToolView }) {
  const verdict = VERDICT[tool.verdict.verdict];
  return (
    <Stack gap="md">
      <div>
        <Group gap="sm" align="center">
          <McpIconImage icons={tool.icons} size={24} label={`${tool.toolName} icon`} />
          <Title order={3} ff="monospace">
            {tool.toolName}
          </Title>
          <Badge variant="outline">{tool.source.kind}:{tool.source.name}</Badge>
          <Tooltip label={tool.verdict.reasons.join(' · ') || verdict.label} multiline maw={380}>
            <Badge color={verdict.color} variant="light" leftSection={<verdict.icon size={12} />} aria-label={`Policy: ${verdict.label}`}>
              {verdict.label}
            </Badge>
          </Tooltip>
        </Group>
        {tool.title && tool.title !== tool.toolName && (
          <Text fw={500} mt={2}>
            {tool.title}
          </Text>
        )}
        <Group gap={6} mt={6}>
          <AnnotationBadges annotations={tool.annotations} size="sm" />
          <Badge size="sm" variant="default">
            risk: {tool.policy.riskLevel}
          </Badge>
          {tool.grpc?.version && (
            <Tooltip label={tool.grpc.compatibleVersions?.length ? `Also accepts ${tool.grpc.compatibleVersions.join(', ')}` : 'Accepts no other version'}>
              <Badge size="sm" variant="light" color="grape" aria-label={`Version ${tool.grpc.version}`}>
                v{tool.grpc.version}
                {tool.grpc.callVersion && tool.grpc.callVersion !== tool.grpc.version ? ` · calls pin ${tool.grpc.callVersion}` : ''}
                {tool.grpc.compatibleVersions?.length ? ` (accepts ${tool.grpc.compatibleVersions.join(', ')})` : ''}
              </Badge>
            </Tooltip>
          )}
          {tool.policy.operationClasses.map((c) => (
            <Badge key={c} size="sm" variant="default">
              {c}
            </Badge>
          ))}
        </Group>
        {tool.description && (
          <Text size="sm" mt="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {tool.description}
          </Text>
        )}
        <Text size="xs" c="dimmed" mt={6} ff="monospace">
          {tool.name}
        </Text>
      </div>
      <Tabs defaultValue="invoke" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="invoke">Invoke</Tabs.Tab>
          <Tabs.Tab value="input">Input schema</Tabs.Tab>
          <Tabs.Tab value="output" disabled={!tool.outputSchema}>
            Output schema
          </Tabs.Tab>
          <Tabs.Tab value="metrics">Metrics</Tabs.Tab>
          <Tabs.Tab value="policy">Runtime policy</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="invoke" pt="md">
          <InvokePanel tool={tool} />
        </Tabs.Panel>
        <Tabs.Panel value="input" pt="md">
          <SchemaViews schema={tool.inputSchema} label="Input schema" />
        </Tabs.Panel>
        <Tabs.Panel value="output" pt="md">
          {tool.outputSchema && <SchemaViews schema={tool.outputSchema} label="Output schema" />}
        </Tabs.Panel>
        <Tabs.Panel value="metrics" pt="md">
          <Paper withBorder p="md">
            <ToolMetricsChart source={`${tool.source.kind}:${tool.source.name}`} tool={tool.toolName} />
          </Paper>
        </Tabs.Panel>
        <Tabs.Panel value="policy" pt="md">
          <Paper withBorder p="md">
            <JsonTree value={{ runtime: tool.runtime, policy: tool.policy, verdict: tool.verdict }} />
          </Paper>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function SchemaViews({ schema, label }: { schema: Record<string, unknown>; label: string }) {
  return (
    <Tabs defaultValue="tree" variant="pills" keepMounted={false}>
      <Tabs.List>
        <Tabs.Tab value="tree">Tree</Tabs.Tab>
        <Tabs.Tab value="raw">Raw JSON</Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="tree" pt="sm">
        <Paper withBorder p="md" aria-label={`${label} tree`}>
          <SchemaTree schema={schema} />
        </Paper>
      </Tabs.Panel>
      <Tabs.Panel value="raw" pt="sm">
        <ScrollArea.Autosize mah={520}>
          <Code block fz="xs" aria-label={`${label} JSON`}>
            {JSON.stringify(schema, null, 2)}
          </Code>
        </ScrollArea.Autosize>
      </Tabs.Panel>
    </Tabs>
  );
}
