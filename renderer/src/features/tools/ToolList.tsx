import { Badge, Group, Text, UnstyledButton } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import type { LintFinding } from '../../../../shared/lock';
import type { ToolView } from '../invoke/types';
import { HeldBadge, LintCountBadge } from '../lock/LintBadges';

const SOURCE_COLOR: Partial<Record<string, string>> = { mcp: 'indigo', a2a: 'grape', bus: 'orange' };

const ROW_HEIGHT = 58;

/** A virtualized list: only the visible rows exist in the DOM, so 10,000 tools scroll smoothly. */
export function ToolList({ tools, selected, onSelect, findings }: { tools: ToolView[]; selected?: string; onSelect: (name: string) => void; findings?: ReadonlyMap<string, LintFinding[]> }) {
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: tools.length, getScrollElement: () => parent.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  return (
    <div ref={parent} style={{ flex: 1, minHeight: 0, overflow: 'auto' }} role="listbox" aria-label="Tools">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((row) => {
          const tool = tools[row.index]!;
          const active = tool.name === selected;
          return (
            <UnstyledButton
              key={tool.name}
              role="option"
              aria-selected={active}
              aria-label={tool.name}
              onClick={() => onSelect(tool.name)}
              px="sm"
              py={6}
              style={{
                position: 'absolute',
                top: 0,
                left: 0,
                width: '100%',
                height: ROW_HEIGHT,
                transform: `translateY(${row.start}px)`,
                borderRadius: 8,
                background: active ? 'var(--mantine-color-default-hover)' : undefined,
              }}
            >
              <Group gap={6} wrap="nowrap" justify="space-between">
                <Text size="sm" fw={600} ff="monospace" truncate="end">
                  {tool.toolName}
                </Text>
                <Group gap={4} wrap="nowrap" style={{ flexShrink: 0 }}>
                  <HeldBadge hold={tool.verdict.hold} />
                  <LintCountBadge findings={findings?.get(tool.name)} />
                  <Badge size="xs" variant="outline" color={SOURCE_COLOR[tool.source.kind] ?? 'cyan'} style={{ flexShrink: 0 }}>
                    {/* Another bridge on RockBot's bus is named by its agent, which may read like a server of this registry. */}
                    {tool.source.kind === 'bus' ? `bus:${tool.source.name}` : tool.source.name}
                  </Badge>
                </Group>
              </Group>
              <Text size="xs" c="dimmed" truncate="end">
                {tool.title && tool.title !== tool.toolName ? `${tool.title} — ` : ''}
                {tool.description?.split('\n')[0] ?? ''}
              </Text>
            </UnstyledButton>
          );
        })}
      </div>
    </div>
  );
}
