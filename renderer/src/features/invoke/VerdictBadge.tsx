import { Badge, List, Tooltip } from '@mantine/core';
import { IconShieldCheck, IconShieldQuestion, IconShieldX } from '@tabler/icons-react';
import type { PolicyVerdict } from '../../../../shared/registry';

const LOOK = {
  allow: { label: 'Allowed', color: 'teal', Icon: IconShieldCheck },
  confirm: { label: 'Needs confirmation', color: 'yellow', Icon: IconShieldQuestion },
  deny: { label: 'Denied', color: 'red', Icon: IconShieldX },
} as const;

/** The policy's verdict on a tool; its reasons on hover. */
export function VerdictBadge({ verdict }: { verdict: PolicyVerdict }) {
  const look = LOOK[verdict.verdict];
  return (
    <Tooltip
      multiline
      w={340}
      withArrow
      label={
        <List size="xs" spacing={2} c="inherit">
          {verdict.reasons.map((reason) => (
            <List.Item key={reason}>{reason}</List.Item>
          ))}
        </List>
      }
    >
      <Badge color={look.color} variant="light" size="lg" radius="sm" leftSection={<look.Icon size={14} aria-hidden />} tabIndex={0} style={{ textTransform: 'none', fontWeight: 600 }}>
        Policy: {look.label}
      </Badge>
    </Tooltip>
  );
}
