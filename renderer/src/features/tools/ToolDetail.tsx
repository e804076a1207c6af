import { Badge, Code, Group, Paper, ScrollArea, Stack, Tabs, Text, Title, Tooltip } from '@mantine/core';
import { JsonTree } from '../../components/JsonTree';
import { SchemaTree } from '../../components/SchemaTree';
import { InvokePanel } from '../invoke/InvokePanel';
import { ToolMetricsChart } from '../metrics/ToolMetricsChart';
import type { ToolView } from '../invoke/types';
import { VerdictBadge } from '../invoke/VerdictBadge';
import { AnnotationBadges } from './AnnotationBadges';
import type { LintFinding } from '../../../../shared/lock';
import { HeldBadge, LintFindingBadges, LintFindingList } from '../lock/LintBadges';
import { RevealedText } from '../lock/RevealedText';
import { McpIconImage } from '../../components/McpIconImage';

export function ToolDetail({ tool, findings = [] }: { tool: ToolView; findings?: LintFinding[] }) {
  return (
    <Stack gap="md">
      <div>
        <Group gap="sm" align="center">
          <McpIconImage icons={tool.icons} size={24} label={`${tool.toolName} icon`} />
          <Title order={3} ff="monospace">
            <RevealedText text={tool.toolName} />
          </Title>
          <Badge variant="outline">{tool.source.kind}:{tool.source.name}</Badge>
          <VerdictBadge verdict={tool.verdict} />
          <HeldBadge hold={tool.verdict.hold} />
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
        <LintFindingBadges findings={findings} />
        {tool.description && (
          <Text size="sm" mt="sm" style={{ whiteSpace: 'pre-wrap' }}>
            <RevealedText text={tool.description} />
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
          <Tabs.Tab value="lint">Lint ({findings.length})</Tabs.Tab>
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
        <Tabs.Panel value="lint" pt="md">
          <LintFindingList findings={findings} />
        </Tabs.Panel>
        <Tabs.Panel value="policy" pt="md">
          <Paper withBorder p="md">
            <JsonTree value={{ effectiveRuntime: tool.effectiveRuntime, policy: tool.policy, verdict: tool.verdict }} />
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
