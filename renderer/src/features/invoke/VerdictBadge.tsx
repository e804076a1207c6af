import { Anchor, Badge, Group, List, Popover, Text } from '@mantine/core';
import { IconShieldCheck, IconShieldQuestion, IconShieldX } from '@tabler/icons-react';
import type { PolicyVerdict, VerdictRule } from '../../../../shared/registry';
import { useNavigate } from '../../shell/useSection';
import { LOCK_RULE_NAME } from '../../../../shared/lock';
import { LockRuleLink } from '../lock/LockRuleLink';
import { reasonInOrlojWords, verdictWord } from '../../components/verdictWords';

const LOOK = {
  allow: { color: 'teal', Icon: IconShieldCheck },
  confirm: { color: 'yellow', Icon: IconShieldQuestion },
  deny: { color: 'red', Icon: IconShieldX },
} as const;

/** The rules that decided the verdict: the strictest matches (none for a default allow). */
export function decidingRules(verdict: PolicyVerdict): VerdictRule[] {
  return verdict.rules.filter((rule) => rule.verdict === verdict.verdict);
}

/** "by <rule> in <file>", the file a link into the Resources editor. */
export function RuleLink({ rule }: { rule: VerdictRule }) {
  const navigate = useNavigate();
  if (rule.name === 'destructiveHint') return <>the server marks it destructive</>;
  // The lockfile is not a resource file: its link opens the review of held definitions.
  if (rule.name === LOCK_RULE_NAME) return <LockRuleLink />;
  return (
    <>
      {rule.name}
      {rule.file && (
        <>
          {' in '}
          <Anchor component="button" type="button" size="inherit" ff="monospace" onClick={() => navigate('resources', { file: rule.file! })}>
            {rule.file}
          </Anchor>
        </>
      )}
    </>
  );
}

/** Every matched rule as a sentence, the deciding ones first. */
export function VerdictReasons({ verdict }: { verdict: PolicyVerdict }) {
  if (verdict.rules.length === 0) return <Text size="sm">{verdict.reasons.map(reasonInOrlojWords).join('; ')}</Text>;
  const ordered = [...decidingRules(verdict), ...verdict.rules.filter((rule) => rule.verdict !== verdict.verdict)];
  return (
    <List size="sm" spacing={2}>
      {ordered.map((rule, index) => (
        <List.Item key={`${rule.name}-${rule.operationClass ?? ''}-${index}`}>
          <RuleLink rule={rule} />
          {rule.operationClass && `: ${rule.operationClass}`} → {verdictWord(rule.verdict)}
        </List.Item>
      ))}
    </List>
  );
}

/**
 * The effective verdict on a tool for the operator at the console — the one the pipeline enforces
 * on their calls — in Orloj's words, with the rule that decided it; click for every rule that
 * matched. An agent's verdict may differ (ToolPermissions scoped by target_agents): the badge says
 * whom it is for.
 */
export function VerdictBadge({ verdict }: { verdict: PolicyVerdict }) {
  const look = LOOK[verdict.verdict];
  const word = verdictWord(verdict.verdict);
  const deciding = decidingRules(verdict)[0];
  return (
    <Popover width={380} withArrow shadow="md" position="top-end">
      <Popover.Target>
        <Badge
          component="button"
          type="button"
          color={look.color}
          variant="light"
          size="lg"
          radius="sm"
          leftSection={<look.Icon size={14} aria-hidden />}
          aria-label={`Policy for you: ${word}${deciding ? ` by ${deciding.name}` : ''}`}
          style={{ textTransform: 'none', fontWeight: 600, cursor: 'pointer' }}
        >
          <Text span size="xs" fw={400} mr={6}>
            for you:
          </Text>
          {word}
          {deciding && (
            <Text span size="xs" fw={400} ml={6}>
              {deciding.name === 'destructiveHint' ? 'destructive' : `by ${deciding.name}`}
            </Text>
          )}
        </Badge>
      </Popover.Target>
      <Popover.Dropdown>
        <Group gap={6} mb={6}>
          <look.Icon size={16} aria-hidden />
          <Text size="sm" fw={600}>
            For you (the operator): {word}
          </Text>
        </Group>
        <VerdictReasons verdict={verdict} />
      </Popover.Dropdown>
    </Popover>
  );
}
