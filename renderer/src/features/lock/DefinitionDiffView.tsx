import { Alert, Badge, Box, Code, Group, Paper, ScrollArea, Stack, Table, Tabs, Text } from '@mantine/core';
import type { CSSProperties } from 'react';
import type { DefinitionDiff, SchemaChange, TextDiffPart, ToolDiff } from '../../../../shared/lock';
import { DefinitionEvals } from '../evals/DefinitionEvals';
import { RevealedText } from './RevealedText';

export const CHANGE_COLOR: Record<ToolDiff['change'], string> = { added: 'teal', removed: 'red', renamed: 'violet', changed: 'orange', unchanged: 'gray' };

const ADDED: CSSProperties = { background: 'var(--mantine-color-teal-light)', textDecoration: 'none' };
const REMOVED: CSSProperties = { background: 'var(--mantine-color-red-light)', textDecoration: 'line-through' };

/**
 * Every tool that differs between two sets of a source's definitions; unchanged ones are counted,
 * not shown. `evals`: in the drift review (approved against current), a changed tool can run the
 * workspace's eval suites with each definition.
 */
export function DefinitionDiffView({ diff, only, evals }: { diff: DefinitionDiff; only?: string; evals?: boolean }) {
  const tools = diff.tools.filter((tool) => (only ? tool.name === only : tool.change !== 'unchanged'));
  return (
    <Stack gap="sm" aria-label="Definition diff">
      {!only && (
        <Group gap={6}>
          {(['changed', 'renamed', 'added', 'removed', 'unchanged'] as const).map((change) => (
            <Badge key={change} color={CHANGE_COLOR[change]} variant={diff.counts[change] ? 'light' : 'outline'}>
              {diff.counts[change]} {change}
            </Badge>
          ))}
        </Group>
      )}
      {tools.length === 0 && (
        <Text size="sm" c="dimmed">
          No differences.
        </Text>
      )}
      {tools.map((tool) => (
        <ToolDiffCard key={`${tool.change}:${tool.name}`} tool={tool} {...(evals && diff.from === 'approved' && diff.to === 'current' ? { source: diff.source } : {})} />
      ))}
    </Stack>
  );
}

/** `source`: set when the diff is the drift review (approved against current), which can run the evals that use the tool with each definition. */
export function ToolDiffCard({ tool, source }: { tool: ToolDiff; source?: string }) {
  return (
    <Paper withBorder p="sm" aria-label={`${tool.change} ${tool.name}`} style={{ minWidth: 0 }}>
      <Group gap="xs" mb={6}>
        <Badge color={CHANGE_COLOR[tool.change]} variant="filled" size="sm">
          {tool.change}
        </Badge>
        <Text ff="monospace" fw={600} size="sm">
          {tool.previousName ? (
            <>
              <RevealedText text={tool.previousName} /> → <RevealedText text={tool.name} />
            </>
          ) : (
            <RevealedText text={tool.name} />
          )}
        </Text>
        {tool.fields.map((field) => (
          <Badge key={field} variant="outline" size="xs">
            {field}
          </Badge>
        ))}
      </Group>
      {tool.beforeUnknown && (
        <Alert color="gray" variant="light" p="xs" mb={6}>
          <Text size="xs">The approved definition was never seen on this machine (approved elsewhere): only its hash is known, so the fields that changed cannot be shown.</Text>
        </Alert>
      )}
      <Stack gap={6}>
        {tool.version && (
          <Text size="sm">
            Version: <Code>{tool.version.before ?? '—'}</Code> → <Code>{tool.version.after ?? '—'}</Code>
          </Text>
        )}
        {tool.title && <TextDiffBlock label="Title" parts={tool.title} />}
        {tool.description && <TextDiffBlock label="Description" parts={tool.description} />}
        {tool.change === 'added' && tool.after?.description && <TextBlock label="Description" text={tool.after.description} />}
        {tool.change === 'removed' && tool.before?.description && <TextBlock label="Description" text={tool.before.description} />}
        {tool.inputSchema.length > 0 && <SchemaChanges label="Input schema" changes={tool.inputSchema} />}
        {tool.outputSchema.length > 0 && <SchemaChanges label="Output schema" changes={tool.outputSchema} />}
        {(tool.before || tool.after) && <FullDefinitions tool={tool} />}
        {source && tool.change === 'changed' && tool.before && tool.after && <DefinitionEvals tool={`${source}.${tool.name}`} />}
      </Stack>
    </Paper>
  );
}

function TextDiffBlock({ label, parts }: { label: string; parts: TextDiffPart[] }) {
  return (
    <Box>
      <Text size="xs" fw={700} c="dimmed" tt="uppercase">
        {label}
      </Text>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} aria-label={`${label} diff`}>
        {parts.map((part, index) =>
          part.op === '=' ? (
            <RevealedText key={index} text={part.text} />
          ) : (
            <Box component={part.op === '+' ? 'ins' : 'del'} key={index} style={part.op === '+' ? ADDED : REMOVED} aria-label={part.op === '+' ? 'added text' : 'removed text'}>
              <RevealedText text={part.text} />
            </Box>
          ),
        )}
      </Text>
    </Box>
  );
}

function TextBlock({ label, text }: { label: string; text: string }) {
  return (
    <Box>
      <Text size="xs" fw={700} c="dimmed" tt="uppercase">
        {label}
      </Text>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        <RevealedText text={text} />
      </Text>
    </Box>
  );
}

function SchemaChanges({ label, changes }: { label: string; changes: SchemaChange[] }) {
  const show = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));
  return (
    <Box>
      <Text size="xs" fw={700} c="dimmed" tt="uppercase">
        {label}
      </Text>
      <Table verticalSpacing={2} fz="xs" aria-label={`${label} changes`}>
        <Table.Tbody>
          {changes.map((change, index) => (
            <Table.Tr key={index}>
              <Table.Td w={90}>
                <Badge size="xs" color={change.kind === 'added' ? 'teal' : change.kind === 'removed' ? 'red' : 'orange'} variant="light">
                  {change.kind}
                </Badge>
              </Table.Td>
              <Table.Td ff="monospace">{change.path || '/'}</Table.Td>
              <Table.Td ff="monospace" style={{ wordBreak: 'break-word' }}>
                {change.kind === 'changed' ? (
                  <>
                    <Box component="del" style={REMOVED}>
                      <RevealedText text={show(change.before)} />
                    </Box>{' '}
                    →{' '}
                    <Box component="ins" style={ADDED}>
                      <RevealedText text={show(change.after)} />
                    </Box>
                  </>
                ) : (
                  <RevealedText text={show(change.kind === 'added' ? change.after : change.before)} />
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Box>
  );
}

function FullDefinitions({ tool }: { tool: ToolDiff }) {
  return (
    <Tabs defaultValue={tool.after ? 'after' : 'before'} variant="pills" keepMounted={false}>
      <Tabs.List>
        {tool.before && <Tabs.Tab value="before">{tool.change === 'removed' ? 'Definition' : 'Before'}</Tabs.Tab>}
        {tool.after && <Tabs.Tab value="after">{tool.change === 'added' ? 'Definition' : 'After'}</Tabs.Tab>}
      </Tabs.List>
      {(['before', 'after'] as const).map((side) =>
        tool[side] ? (
          <Tabs.Panel key={side} value={side} pt={6}>
            <ScrollArea.Autosize mah={280}>
              <Code block fz="xs" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                <RevealedText text={JSON.stringify(tool[side], null, 2)} />
              </Code>
            </ScrollArea.Autosize>
            <Text size="xs" c="dimmed" ff="monospace" mt={2} style={{ overflowWrap: 'anywhere' }}>
              {side === 'before' ? tool.beforeHash : tool.afterHash}
            </Text>
          </Tabs.Panel>
        ) : null,
      )}
    </Tabs>
  );
}
