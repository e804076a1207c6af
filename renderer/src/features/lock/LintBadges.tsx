import { Badge, Group, List, Paper, Popover, Stack, Text, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconShieldX } from '@tabler/icons-react';
import type { LintFinding, LintSeverity, ToolHold } from '../../../../shared/lock';
import { RevealedText } from './RevealedText';

const SEVERITY_COLOR: Record<LintSeverity, string> = { high: 'red', medium: 'orange', low: 'gray' };
const ORDER: LintSeverity[] = ['high', 'medium', 'low'];

/** The worst severity and how many findings a tool has, as a small badge for lists. */
export function LintCountBadge({ findings }: { findings: readonly LintFinding[] | undefined }) {
  if (!findings?.length) return null;
  const worst = ORDER.find((severity) => findings.some((finding) => finding.severity === severity))!;
  return (
    <Tooltip label={findings.map((finding) => `${finding.severity} · ${finding.rule}`).join('\n')} multiline style={{ whiteSpace: 'pre-line' }}>
      <Badge size="xs" color={SEVERITY_COLOR[worst]} variant={worst === 'low' ? 'outline' : 'light'} leftSection={<IconAlertTriangle size={10} />} aria-label={`Lint: ${findings.length} finding(s), worst ${worst}`} style={{ flexShrink: 0 }}>
        {findings.length}
      </Badge>
    </Tooltip>
  );
}

/** A tool held by tooldeck.lock, as a small badge for lists. */
export function HeldBadge({ hold }: { hold: ToolHold | undefined }) {
  if (!hold) return null;
  return (
    <Tooltip label={hold.reason} multiline maw={320}>
      <Badge size="xs" color={hold.state === 'rejected' ? 'red' : 'orange'} variant="filled" leftSection={<IconShieldX size={10} />} aria-label={`Held by tooldeck.lock: ${hold.state}`} style={{ flexShrink: 0 }}>
        {hold.state === 'rejected' ? 'rejected' : 'review'}
      </Badge>
    </Tooltip>
  );
}

/** Every finding of a tool, one badge per rule, each opening its message and the offending text. */
export function LintFindingBadges({ findings }: { findings: readonly LintFinding[] | undefined }) {
  if (!findings?.length) return null;
  return (
    <Group gap={4} aria-label="Lint findings">
      {findings.map((finding, index) => (
        <Popover key={`${finding.rule}-${finding.location}-${index}`} width={460} withArrow shadow="md">
          <Popover.Target>
            <Badge component="button" type="button" size="sm" color={SEVERITY_COLOR[finding.severity]} variant={finding.severity === 'low' ? 'outline' : 'light'} style={{ cursor: 'pointer', textTransform: 'none' }}>
              {finding.severity} · {finding.rule}
            </Badge>
          </Popover.Target>
          <Popover.Dropdown>
            <Stack gap={4}>
              <Text size="sm" fw={600}>
                {finding.rule} ({finding.severity})
              </Text>
              <Text size="sm">{finding.message}</Text>
              <Text size="xs" c="dimmed" ff="monospace">
                {finding.location}
              </Text>
            </Stack>
          </Popover.Dropdown>
        </Popover>
      ))}
    </Group>
  );
}

/** A tool's findings in full, for its detail view. */
export function LintFindingList({ findings }: { findings: readonly LintFinding[] }) {
  return (
    <Paper withBorder p="sm">
      {findings.length === 0 ? (
        <Text size="sm" c="dimmed">
          The linter found nothing in this tool’s name, description or schemas.
        </Text>
      ) : (
        <List spacing={8} size="sm" aria-label="Lint findings of this tool">
          {findings.map((finding, index) => (
            <List.Item key={index} icon={<Badge size="xs" color={SEVERITY_COLOR[finding.severity]} variant="light" w={64}>{finding.severity}</Badge>}>
              <Text size="sm">
                <Text span ff="monospace" fw={600}>
                  {finding.rule}
                </Text>{' '}
                — {finding.message}
              </Text>
              {finding.excerpt && (
                <Text size="xs" c="dimmed" ff="monospace" style={{ wordBreak: 'break-word' }}>
                  <RevealedText text={finding.excerpt} />
                </Text>
              )}
            </List.Item>
          ))}
        </List>
      )}
    </Paper>
  );
}
