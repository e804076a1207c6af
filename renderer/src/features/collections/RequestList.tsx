import { ActionIcon, Badge, Group, Stack, Text, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconGripVertical } from '@tabler/icons-react';
import { useState } from 'react';
import type { SavedRequest } from '../../../../shared/collections';

export interface RequestListProps {
  requests: SavedRequest[];
  selected: number | 'new' | undefined;
  onSelect: (index: number) => void;
  /** Moves the request at `from` to `to`; requests run in this order. */
  onMove: (from: number, to: number) => void;
}

/** The requests in run order: drag one, or use its up/down buttons, to move it. */
export function RequestList({ requests, selected, onSelect, onMove }: RequestListProps) {
  const [dragging, setDragging] = useState<number | null>(null);
  return (
    <Stack gap={2} role="list" aria-label="Requests">
      {requests.map((request, index) => (
        <Group
          key={request.name}
          role="listitem"
          gap={4}
          wrap="nowrap"
          draggable
          onDragStart={(e) => {
            setDragging(index);
            e.dataTransfer.effectAllowed = 'move';
          }}
          onDragOver={(e) => dragging !== null && e.preventDefault()}
          onDrop={(e) => {
            e.preventDefault();
            if (dragging !== null && dragging !== index) onMove(dragging, index);
            setDragging(null);
          }}
          onDragEnd={() => setDragging(null)}
          style={{ borderRadius: 8, background: selected === index ? 'var(--mantine-color-default-hover)' : undefined, opacity: dragging === index ? 0.5 : 1 }}
        >
          <IconGripVertical size={14} style={{ cursor: 'grab', flexShrink: 0, color: 'var(--mantine-color-dimmed)' }} aria-hidden />
          <UnstyledButton aria-current={selected === index ? 'true' : undefined} onClick={() => onSelect(index)} p={6} style={{ flex: 1, minWidth: 0 }}>
            <Group gap={6} wrap="nowrap">
              <Badge size="xs" variant="default" style={{ flexShrink: 0 }}>
                {index + 1}
              </Badge>
              <div style={{ minWidth: 0 }}>
                <Text size="sm" fw={600} truncate="end">
                  {request.name}
                </Text>
                <Text size="xs" c="dimmed" ff="monospace" truncate="end">
                  {request.target} · {request.tool}
                </Text>
              </div>
            </Group>
          </UnstyledButton>
          <ActionIcon variant="subtle" size="sm" aria-label={`Move ${request.name} up`} disabled={index === 0} onClick={() => onMove(index, index - 1)}>
            <IconArrowUp size={14} />
          </ActionIcon>
          <ActionIcon variant="subtle" size="sm" aria-label={`Move ${request.name} down`} disabled={index === requests.length - 1} onClick={() => onMove(index, index + 1)}>
            <IconArrowDown size={14} />
          </ActionIcon>
        </Group>
      ))}
    </Stack>
  );
}
