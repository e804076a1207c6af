import { Badge } from '@mantine/core';
import type { ToolPhase } from '../../../../shared/kube';

const COLORS: Record<ToolPhase, string> = { Running: 'teal', Pending: 'yellow', Updating: 'blue', Failed: 'red', Unknown: 'gray' };

export function PhaseBadge({ phase, deleting = false }: { phase: ToolPhase; deleting?: boolean }) {
  return (
    <Badge color={deleting ? 'gray' : COLORS[phase]} variant="light" size="sm">
      {deleting ? `${phase} · deleting` : phase}
    </Badge>
  );
}
