import { Badge, Code, Group, Paper, ScrollArea, Stack, Tabs, Text, Title, Tooltip } from '@mantine/core';
import { JsonTree } from '../../components/JsonTree';
import { SchemaTree } from '../../components/SchemaTree';
import { InvokePanel } from '../invoke/InvokePanel';
import { ToolMetricsChart } from '../metrics/ToolMetricsChart';
import type { ToolView } from '../invoke/types';
import { decidingRules, VerdictBadge } from '../invoke/VerdictBadge';
import { reasonInOrlojWords } from '../../components/verdictWords';
import { AgentVerdicts } from './AgentVerdicts';
import { AnnotationBadges } from './AnnotationBadges';
import type { LintFinding } from '../../../../shared/lock';
import { defaultOperationClass, operationClassFromAnnotations } from '../../../../shared/policy';
import type { OperationClass } from '../../../../shared/registry';
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
          <AnnotationBadges annotations={tool.annotations} size="sm" {...(classOrigin(tool) === 'tool-resource' ? { declaredClasses: tool.policy.operationClasses } : {})} />
          <RiskBadge tool={tool} />
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
            <Tooltip key={c} multiline w={320} withArrow label={classOrigin(tool) === 'tool-resource' ? 'Declared by a Tool resource (operation_classes): it wins over the server’s annotations, and policy reads it.' : 'The operation class policy reads for this tool.'}>
              <Badge size="sm" variant="default">
                {c}
                {classOrigin(tool) === 'tool-resource' ? ' · declared' : ''}
              </Badge>
            </Tooltip>
          ))}
          <AllowedRiskyClassBadge tool={tool} />
        </Group>
        <AgentVerdicts tool={tool.name} />
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

/** Where a tool's operation classes came from, read back from the rules that made them (main/registry/policy/operationClasses.ts). */
export type ClassOrigin = 'tool-resource' | 'annotations' | 'default';

/**
 * The registry fills in what nobody configured: classes from the server's hints, else Orloj's
 * default for the risk level (read; write for high and critical). Classes that are neither were
 * written in a Tool resource's operation_classes.
 */
export function classOrigin(tool: Pick<ToolView, 'annotations' | 'policy'>): ClassOrigin {
  const classes = tool.policy.operationClasses;
  const setBy = tool.policy.setBy;
  if (setBy) return setBy.operationClasses ? 'tool-resource' : operationClassFromAnnotations(tool.annotations) ? 'annotations' : 'default';
  const only = (c: OperationClass) => classes.length === 1 && classes[0] === c;
  const hinted = operationClassFromAnnotations(tool.annotations);
  if (hinted) return only(hinted) ? 'annotations' : 'tool-resource';
  return only(defaultOperationClass(tool.policy.riskLevel)) ? 'default' : 'tool-resource';
}

export interface RiskExplanation {
  label: string;
  /** Sentences for the tooltip: where the level came from, where the classes came from, what risk does. */
  why: string[];
  /** The level says nothing of a class that deletes or administers: it deserves a look. */
  mismatch: boolean;
}

const RISKY_CLASSES: readonly OperationClass[] = ['delete', 'admin'];

/**
 * What the risk badge says and why. risk_level comes only from a Tool resource and defaults to low
 * (Orloj), so a low the operator never chose must not read as an assessment. The registry says
 * what a Tool resource set (`policy.setBy`); a view without that flag (a policy from elsewhere)
 * infers it: a level other than low was set; low with classes the registry filled in itself means
 * nobody configured the tool; low beside classes a Tool resource wrote may be either, and the
 * label says so.
 */
export function explainRisk(tool: Pick<ToolView, 'annotations' | 'policy'>): RiskExplanation {
  const level = tool.policy.riskLevel;
  const origin = classOrigin(tool);
  // Whether a Tool resource wrote risk_level: known when the registry says so, else inferred.
  const levelSet = tool.policy.setBy ? tool.policy.setBy.riskLevel : level !== 'low' ? true : origin === 'tool-resource' ? undefined : false;
  const classes = tool.policy.operationClasses.join(', ');
  const levelWhy =
    levelSet === true
      ? `risk_level ${level} is set by a Tool resource${level === 'low' ? '' : ' (the default is low)'}.`
      : levelSet === undefined
        ? 'A Tool resource configures this tool; its risk_level is low or not set (low is the default).'
        : 'No Tool resource sets a risk_level for this tool, so Orloj’s default, low, applies. It is not an assessment of what the tool does.';
  const classWhy =
    origin === 'annotations'
      ? `Operation class ${classes}: from the server’s annotations${tool.policy.operationClasses[0] === 'delete' && tool.annotations?.destructiveHint === undefined ? ' (not read-only and no destructiveHint, which MCP reads as destructive)' : ''}.`
      : origin === 'default'
        ? `Operation class ${classes}: Orloj’s default for ${level} risk (the server gives no read-only or destructive hint).`
        : `Operation classes ${classes}: set by a Tool resource (operation_classes).`;
  const label =
    level !== 'low' ? `risk: ${level}` : levelSet === true ? 'risk: low (set by a Tool resource)' : levelSet === undefined ? 'risk: low (Tool resource or default)' : 'risk: low (default — no risk_level set)';
  return {
    label,
    why: [levelWhy, classWhy, 'The risk level sets runtime defaults (high and critical run sandboxed); it does not decide the verdict. ToolPermission rules on operation classes and the server’s destructiveHint do.'],
    mismatch: level === 'low' && tool.policy.operationClasses.some((c) => RISKY_CLASSES.includes(c)),
  };
}

function RiskBadge({ tool }: { tool: ToolView }) {
  const risk = explainRisk(tool);
  return (
    <Tooltip
      multiline
      w={360}
      withArrow
      label={
        <Stack gap={4}>
          {risk.why.map((line) => (
            <Text key={line} size="xs">
              {line}
            </Text>
          ))}
        </Stack>
      }
    >
      <Badge size="sm" variant={risk.mismatch ? 'light' : 'default'} color={risk.mismatch ? 'orange' : undefined} tt="none" aria-label={`${risk.label}: ${risk.why.join(' ')}`}>
        {risk.label}
      </Badge>
    </Tooltip>
  );
}

/**
 * A delete or admin tool the policy allows, next to its green "Allowed": why it is allowed. Left
 * unsaid, "Allowed" beside "risk: low" reads as a verdict that the tool is harmless.
 */
function AllowedRiskyClassBadge({ tool }: { tool: ToolView }) {
  if (tool.verdict.verdict !== 'allow') return null;
  const risky = tool.policy.operationClasses.filter((c) => RISKY_CLASSES.includes(c));
  if (risky.length === 0) return null;
  const allowing = decidingRules(tool.verdict).filter((rule) => rule.operationClass && risky.includes(rule.operationClass as OperationClass));
  const byDefault = allowing.length === 0;
  const label = byDefault ? `${risky.join(', ')} allowed: no rule covers it` : `${risky.join(', ')} allowed by ${[...new Set(allowing.map((rule) => rule.name))].join(', ')}`;
  const tip = byDefault
    ? `No ToolPermission rule covers ${risky.join(' or ')}, so calls are allowed by default. To hold them back, write a ToolPermission with a rule for ${risky[0]} → approval_required or deny.`
    : `A ToolPermission allows ${risky.join(' and ')} explicitly: ${tool.verdict.reasons.map(reasonInOrlojWords).join('; ')}.`;
  return (
    <Tooltip multiline w={360} withArrow label={tip}>
      <Badge size="sm" variant="light" color={byDefault ? 'orange' : 'gray'} tt="none" aria-label={`${label}: ${tip}`}>
        {label}
      </Badge>
    </Tooltip>
  );
}
