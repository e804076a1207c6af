import { Badge, Group, Tooltip } from '@mantine/core';
import type { ToolAnnotations } from '../../../../shared/mcp';

/** The hints a Tool resource's declared operation classes replace: what the call does to its environment. */
const BEHAVIOUR_HINTS = ['read-only', 'destructive', 'idempotent'];

/**
 * The MCP annotation hints as badges. Hints come from the server and are not guarantees.
 * `tooltips={false}` in long lists: a tooltip per badge per row is the bulk of a 1,000-row render; the badge's title still explains it.
 * `declaredClasses`: the operation classes a Tool resource declares. They win over the server's
 * behaviour hints (policy reads the classes, not the hints), so those hints are drawn as overridden
 * rather than as badges that contradict the classes ("read-only" beside "write").
 */
export function AnnotationBadges({ annotations, size = 'xs', tooltips = true, declaredClasses }: { annotations?: ToolAnnotations; size?: 'xs' | 'sm'; tooltips?: boolean; declaredClasses?: readonly string[] }) {
  if (!annotations) return null;
  let badges: Array<{ label: string; color: string; tip: string }> = [];
  if (annotations.readOnlyHint) badges.push({ label: 'read-only', color: 'teal', tip: 'readOnlyHint: does not modify its environment' });
  if (annotations.destructiveHint === true && !annotations.readOnlyHint) badges.push({ label: 'destructive', color: 'red', tip: 'destructiveHint: may delete or overwrite' });
  if (annotations.idempotentHint) badges.push({ label: 'idempotent', color: 'blue', tip: 'idempotentHint: repeating a call has no further effect' });
  if (annotations.openWorldHint) badges.push({ label: 'open world', color: 'grape', tip: 'openWorldHint: talks to the outside world' });
  const overridden = declaredClasses?.length ? badges.filter((b) => BEHAVIOUR_HINTS.includes(b.label)) : [];
  if (overridden.length > 0) {
    const tip = `A Tool resource declares operation_classes ${declaredClasses!.join(', ')}; a Tool's declared class wins over the server's annotations, so policy ignores its hints (${overridden.map((b) => b.label).join(', ')}).`;
    badges = [...badges.filter((b) => !overridden.includes(b)), { label: `server hints overridden: ${overridden.map((b) => b.label).join(', ')}`, color: 'gray', tip }];
  }
  if (badges.length === 0) return null;
  return (
    <Group gap={4} wrap={tooltips ? 'wrap' : 'nowrap'}>
      {badges.map((b) =>
        tooltips ? (
          <Tooltip key={b.label} label={b.tip} multiline maw={360}>
            <Badge size={size} variant="light" color={b.color} tt={b.color === 'gray' ? 'none' : undefined} aria-label={b.color === 'gray' ? `${b.label}: ${b.tip}` : undefined}>
              {b.label}
            </Badge>
          </Tooltip>
        ) : (
          <Badge key={b.label} size={size} variant="light" color={b.color} title={b.tip}>
            {b.label}
          </Badge>
        ),
      )}
    </Group>
  );
}
