import { Badge, Group, Tooltip } from '@mantine/core';
import type { ToolAnnotations } from '../../../../shared/mcp';

/** The MCP annotation hints as badges. Hints come from the server and are not guarantees. */
/** `tooltips={false}` in long lists: a tooltip per badge per row is the bulk of a 1,000-row render; the badge's title still explains it. */
export function AnnotationBadges({ annotations, size = 'xs', tooltips = true }: { annotations?: ToolAnnotations; size?: 'xs' | 'sm'; tooltips?: boolean }) {
  if (!annotations) return null;
  const badges: Array<{ label: string; color: string; tip: string }> = [];
  if (annotations.readOnlyHint) badges.push({ label: 'read-only', color: 'teal', tip: 'readOnlyHint: does not modify its environment' });
  if (annotations.destructiveHint === true && !annotations.readOnlyHint) badges.push({ label: 'destructive', color: 'red', tip: 'destructiveHint: may delete or overwrite' });
  if (annotations.idempotentHint) badges.push({ label: 'idempotent', color: 'blue', tip: 'idempotentHint: repeating a call has no further effect' });
  if (annotations.openWorldHint) badges.push({ label: 'open world', color: 'grape', tip: 'openWorldHint: talks to the outside world' });
  if (badges.length === 0) return null;
  return (
    <Group gap={4} wrap={tooltips ? 'wrap' : 'nowrap'}>
      {badges.map((b) =>
        tooltips ? (
          <Tooltip key={b.label} label={b.tip}>
            <Badge size={size} variant="light" color={b.color}>
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
