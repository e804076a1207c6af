import { Box, Center, Group, Loader, Table, Text, Tooltip } from '@mantine/core';
import { IconRepeat, IconScissors } from '@tabler/icons-react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, type CSSProperties, type KeyboardEvent, type ReactNode } from 'react';
import type { InvocationRecord } from '../../../../shared/invocation';
import { formatBytes } from '../../components/format';
import { formatLatency } from '../metrics/formatMetric';
import { CallStatusBadge } from './CallStatusBadge';
import { VIA_LABEL } from './HistoryFilterBar';

const ROW_HEIGHT = 38;
/** Load the next page when this close to the end of what is loaded. */
const PREFETCH_ROWS = 40;

interface Column {
  label: string;
  /** The column's width; with `min`, the width it starts from and may shrink towards `min`. */
  width?: number;
  /** The narrowest the column gets: the Tool column keeps a readable name beside the details pane at 1,440 px. */
  min?: number;
  align?: 'right';
  cell: (record: InvocationRecord) => ReactNode;
}

const sameDay = (a: number, b: number) => new Date(a).toDateString() === new Date(b).toDateString();
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });

/** 14:03:22.123 today, "Mar 3 14:03:22" before. */
export function formatCallTime(at: number, now = Date.now()): string {
  const time = timeFormat.format(at);
  return sameDay(at, now) ? `${time}.${String(at % 1000).padStart(3, '0')}` : `${dayFormat.format(at)} ${time}`;
}

const COLUMNS: Column[] = [
  {
    label: 'Time',
    width: 102,
    cell: (r) => (
      <Text span fz="xs" ff="monospace" title={new Date(r.startedAt).toString()}>
        {formatCallTime(r.startedAt)}
      </Text>
    ),
  },
  { label: 'Status', width: 100, cell: (r) => <CallStatusBadge record={r} size="xs" /> },
  {
    label: 'Source',
    width: 140,
    min: 110,
    // The server or agent by name, its kind beside it in small capitals: readable at a glance,
    // the whole `kind:name` on hover.
    cell: (r) => (
      <Group gap={6} wrap="nowrap" title={`${r.sourceKind}:${r.sourceName}`} style={{ minWidth: 0 }}>
        <Text span fz={10} fw={700} c="dimmed" tt="uppercase" style={{ flexShrink: 0 }}>
          {r.sourceKind}
        </Text>
        <Text span fz="sm" truncate="end">
          {r.sourceName}
        </Text>
      </Group>
    ),
  },
  {
    label: 'Tool',
    min: 150,
    cell: (r) => (
      <Text span fz="sm" ff="monospace" fw={500} truncate="end" title={r.tool}>
        {r.tool}
      </Text>
    ),
  },
  {
    label: 'Via',
    width: 120,
    min: 70,
    // The way in, and the agent when an agent made the call; blank for calls recorded before either was kept.
    cell: (r) =>
      r.via || r.agent ? (
        <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }} title={[r.via ? `via ${VIA_LABEL[r.via]}` : '', r.agent ? `by agent ${r.agent}` : 'by the operator'].filter(Boolean).join(' ')}>
          {r.via && (
            <Text span fz="xs" c="dimmed" style={{ flexShrink: 0 }}>
              {VIA_LABEL[r.via]}
            </Text>
          )}
          {r.agent && (
            <Text span fz="xs" fw={500} truncate="end">
              {r.agent}
            </Text>
          )}
        </Group>
      ) : null,
  },
  { label: 'Latency', width: 76, align: 'right', cell: (r) => <Mono>{formatLatency(r.latencyMs)}</Mono> },
  // Sent and received share a column so that the tool's name keeps the width.
  {
    label: 'Size',
    width: 104,
    align: 'right',
    cell: (r) => (
      <span title={`${formatBytes(r.requestBytes)} sent, ${formatBytes(r.responseBytes)} received`}>
        <Mono dimmed>
          {formatBytes(r.requestBytes)} → {formatBytes(r.responseBytes)}
        </Mono>
      </span>
    ),
  },
  { label: 'Flags', width: 60, cell: (r) => <Flags record={r} /> },
];

/** Shown when the calls come from more than one replica (a history shared by several Tooldeck processes). */
const REPLICA_COLUMN: Column = {
  label: 'Replica',
  width: 110,
  min: 64,
  cell: (r) => (
    <Text span fz="xs" ff="monospace" c="dimmed" truncate="end" title={r.replica}>
      {r.replica}
    </Text>
  ),
};

/** The columns for these rows: Replica after Via once the rows name two replicas or more. */
function columnsFor(rows: readonly InvocationRecord[]): Column[] {
  const first = rows.find((r) => r.replica)?.replica;
  if (!first || !rows.some((r) => r.replica && r.replica !== first)) return COLUMNS;
  const via = COLUMNS.findIndex((c) => c.label === 'Via');
  return [...COLUMNS.slice(0, via + 1), REPLICA_COLUMN, ...COLUMNS.slice(via + 1)];
}

function Mono({ children, dimmed }: { children: ReactNode; dimmed?: boolean }) {
  return (
    <Text span fz="xs" ff="monospace" c={dimmed ? 'dimmed' : undefined}>
      {children}
    </Text>
  );
}

function Flags({ record }: { record: InvocationRecord }) {
  return (
    <Group gap={6} wrap="nowrap">
      {record.truncated && (
        <Tooltip label="The result was cut to the size cap" withArrow>
          <IconScissors size={15} color="var(--mantine-color-yellow-6)" aria-label="Truncated" role="img" />
        </Tooltip>
      )}
      {record.replayOf && (
        <Tooltip label={`Replay of ${record.replayOf}`} withArrow>
          <IconRepeat size={15} color="var(--mantine-color-blue-5)" aria-label={`Replay of ${record.replayOf}`} role="img" />
        </Tooltip>
      )}
    </Group>
  );
}

function cellStyle(column: Column): CSSProperties {
  return {
    display: 'flex',
    alignItems: 'center',
    justifyContent: column.align === 'right' ? 'flex-end' : 'flex-start',
    minWidth: column.min ?? 0,
    overflow: 'hidden',
    ...(column.width === undefined ? { flex: '1 1 0' } : column.min === undefined ? { width: column.width, flex: '0 0 auto' } : { flex: `0 1 ${column.width}px` }),
  };
}

export interface CallsTableProps {
  rows: InvocationRecord[];
  selectedId: string | undefined;
  onSelect: (id: string) => void;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
  /** All matching calls, for aria-rowcount; the loaded count when unknown. */
  total?: number;
}

/**
 * The calls as a grid: only the rows in view exist in the DOM, more pages load as the end comes
 * into view. Arrow keys, Home/End and Page Up/Down move the selection.
 */
export function CallsTable({ rows, selectedId, onSelect, hasMore, loadingMore, onLoadMore, total }: CallsTableProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 10, getItemKey: (i) => rows[i]!.id });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? -1;

  useEffect(() => {
    if (hasMore && !loadingMore && lastIndex >= rows.length - PREFETCH_ROWS) onLoadMore();
  }, [hasMore, loadingMore, lastIndex, rows.length, onLoadMore]);

  const selectedIndex = selectedId === undefined ? -1 : rows.findIndex((r) => r.id === selectedId);
  const columns = useMemo(() => columnsFor(rows), [rows]);

  const onKeyDown = (event: KeyboardEvent) => {
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? ROW_HEIGHT * 10) / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity };
    const move = moves[event.key];
    if (move === undefined || rows.length === 0) return;
    event.preventDefault();
    const next = Math.min(rows.length - 1, Math.max(0, (selectedIndex < 0 ? -1 : selectedIndex) + move));
    virtualizer.scrollToIndex(next, { align: 'auto' });
    onSelect(rows[next]!.id);
  };

  return (
    <Box ref={scroller} h="100%" style={{ overflow: 'auto', position: 'relative' }}>
      <Table
        role="grid"
        aria-label="Calls"
        aria-rowcount={(total ?? rows.length) + 1}
        aria-activedescendant={selectedIndex >= 0 ? rowId(rows[selectedIndex]!.id) : undefined}
        tabIndex={0}
        onKeyDown={onKeyDown}
        highlightOnHover
        verticalSpacing={0}
        horizontalSpacing={8}
        style={{ display: 'grid', outlineOffset: -2 }}
      >
        <Table.Thead style={{ display: 'grid', position: 'sticky', top: 0, zIndex: 2, background: 'var(--mantine-color-body)' }}>
          <Table.Tr style={{ display: 'flex', width: '100%' }} aria-rowindex={1}>
            {columns.map((column) => (
              <Table.Th key={column.label} style={{ ...cellStyle(column), height: 34 }} fz="xs" c="dimmed" fw={600}>
                {column.label}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody style={{ display: 'grid', height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const record = rows[item.index]!;
            const selected = record.id === selectedId;
            return (
              <Table.Tr
                key={record.id}
                id={rowId(record.id)}
                aria-rowindex={item.index + 2}
                aria-selected={selected}
                onClick={() => onSelect(record.id)}
                bg={selected ? 'var(--mantine-primary-color-light)' : undefined}
                style={{ display: 'flex', position: 'absolute', top: 0, left: 0, width: '100%', height: ROW_HEIGHT, transform: `translateY(${item.start}px)`, cursor: 'pointer' }}
              >
                {columns.map((column) => (
                  <Table.Td key={column.label} style={cellStyle(column)}>
                    {column.cell(record)}
                  </Table.Td>
                ))}
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
      {loadingMore && (
        <Center py="xs">
          <Loader size="xs" aria-label="Loading more calls" />
        </Center>
      )}
    </Box>
  );
}

function rowId(id: string): string {
  return `call-row-${id}`;
}
