import { Box, Text } from '@mantine/core';
import { IconChevronRight } from '@tabler/icons-react';
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export interface JsonTreeProps {
  value: unknown;
  /** The tree's accessible name, e.g. "Structured content". */
  label?: string;
  /** Objects and arrays shallower than this start expanded (unless they are large). */
  expandDepth?: number;
  /** Children listed per page of a large object or array. */
  pageSize?: number;
}

type Container = Record<string, unknown> | unknown[];

interface ValueRow {
  kind: 'value';
  id: string;
  parentId: string | null;
  depth: number;
  name: string | number | undefined;
  value: unknown;
  position: number;
  setSize: number;
}

interface MoreRow {
  kind: 'more';
  id: string;
  parentId: string;
  depth: number;
  shown: number;
  total: number;
  position: number;
  setSize: number;
}

type Row = ValueRow | MoreRow;

/** Containers larger than this start collapsed, whatever their depth. */
const LARGE = 50;

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

function entriesOf(value: Container): Array<[string | number, unknown]> {
  return Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
}

function childId(parentId: string, name: string | number): string {
  return `${parentId}/${String(name).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * A collapsible JSON viewer. It is one flat ARIA tree (rows carry their level), so arrow keys move
 * through what is visible; large containers start closed and list their children a page at a time.
 */
export function JsonTree({ value, label = 'JSON value', expandDepth = 2, pageSize = 100 }: JsonTreeProps) {
  const [toggled, setToggled] = useState<Map<string, boolean>>(() => new Map());
  const [pages, setPages] = useState<Map<string, number>>(() => new Map());
  const [activeId, setActiveId] = useState('');
  const rowRefs = useRef(new Map<string, HTMLDivElement>());
  const focusPending = useRef(false);

  const isExpanded = useCallback(
    (id: string, depth: number, container: Container) => toggled.get(id) ?? (depth < expandDepth && entriesOf(container).length <= LARGE),
    [toggled, expandDepth],
  );

  const rows = useMemo(() => {
    const out: Row[] = [];
    const visit = (id: string, parentId: string | null, depth: number, name: string | number | undefined, item: unknown, position: number, setSize: number) => {
      out.push({ kind: 'value', id, parentId, depth, name, value: item, position, setSize });
      if (!isContainer(item) || !isExpanded(id, depth, item)) return;
      const children = entriesOf(item);
      const shown = Math.min(children.length, pages.get(id) ?? pageSize);
      const setSizeHere = children.length > shown ? shown + 1 : shown;
      children.slice(0, shown).forEach(([key, child], index) => visit(childId(id, key), id, depth + 1, key, child, index + 1, setSizeHere));
      if (shown < children.length) {
        out.push({ kind: 'more', id: `${id}#more`, parentId: id, depth: depth + 1, shown, total: children.length, position: shown + 1, setSize: setSizeHere });
      }
    };
    visit('', null, 0, undefined, value, 1, 1);
    return out;
  }, [value, pages, pageSize, isExpanded]);

  const active = rows.some((row) => row.id === activeId) ? activeId : rows[0]!.id;

  useEffect(() => {
    if (!focusPending.current) return;
    focusPending.current = false;
    rowRefs.current.get(active)?.focus();
  }, [active, rows]);

  const focusRow = (id: string) => {
    focusPending.current = true;
    setActiveId(id);
  };

  const setOpen = (id: string, open: boolean) => setToggled((prev) => new Map(prev).set(id, open));

  const showMore = (row: MoreRow) => {
    setPages((prev) => new Map(prev).set(row.parentId, row.shown + pageSize));
    focusRow(row.id);
  };

  const activate = (row: Row) => {
    if (row.kind === 'more') showMore(row);
    else if (isContainer(row.value)) setOpen(row.id, !isExpanded(row.id, row.depth, row.value));
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = rows.findIndex((row) => row.id === active);
    const row = rows[index];
    if (!row) return;
    const expandable = row.kind === 'value' && isContainer(row.value);
    const open = expandable && isExpanded(row.id, row.depth, row.value as Container);
    const handled = (() => {
      switch (event.key) {
        case 'ArrowDown':
          if (index < rows.length - 1) focusRow(rows[index + 1]!.id);
          return true;
        case 'ArrowUp':
          if (index > 0) focusRow(rows[index - 1]!.id);
          return true;
        case 'ArrowRight':
          if (expandable && !open) setOpen(row.id, true);
          else if (open && rows[index + 1]) focusRow(rows[index + 1]!.id);
          return true;
        case 'ArrowLeft':
          if (open) setOpen(row.id, false);
          else if (row.parentId !== null) focusRow(row.parentId);
          return true;
        case 'Home':
          focusRow(rows[0]!.id);
          return true;
        case 'End':
          focusRow(rows[rows.length - 1]!.id);
          return true;
        case 'Enter':
        case ' ':
          activate(row);
          return true;
        default:
          return false;
      }
    })();
    if (handled) event.preventDefault();
  };

  return (
    <Box
      role="tree"
      aria-label={label}
      onKeyDown={onKeyDown}
      ff="monospace"
      fz="xs"
      style={{ lineHeight: 1.7, overflowX: 'auto' }}
    >
      {rows.map((row) => {
        const expandable = row.kind === 'value' && isContainer(row.value);
        const open = expandable && isExpanded(row.id, row.depth, row.value as Container);
        return (
          <div
            key={row.id}
            ref={(element) => {
              if (element) rowRefs.current.set(row.id, element);
              else rowRefs.current.delete(row.id);
            }}
            role="treeitem"
            aria-level={row.depth + 1}
            aria-posinset={row.position}
            aria-setsize={row.setSize}
            aria-expanded={expandable ? open : undefined}
            aria-selected={row.id === active}
            tabIndex={row.id === active ? 0 : -1}
            onClick={() => {
              setActiveId(row.id);
              activate(row);
            }}
            style={{
              paddingLeft: `calc(${row.depth} * 1.1rem + 0.25rem)`,
              cursor: expandable || row.kind === 'more' ? 'pointer' : 'default',
              borderRadius: 'var(--mantine-radius-sm)',
              outlineOffset: -2,
              whiteSpace: 'pre-wrap',
              wordBreak: 'break-word',
            }}
          >
            {row.kind === 'more' ? (
              <Text span inherit c="indigo" td="underline">
                Show {Math.min(pageSize, row.total - row.shown).toLocaleString()} more ({row.shown.toLocaleString()} of {row.total.toLocaleString()} shown)
              </Text>
            ) : (
              <RowContent row={row} expandable={expandable} open={open} />
            )}
          </div>
        );
      })}
    </Box>
  );
}

function RowContent({ row, expandable, open }: { row: ValueRow; expandable: boolean; open: boolean }) {
  return (
    <>
      <Box
        component="span"
        aria-hidden
        style={{ display: 'inline-block', width: '1rem', verticalAlign: 'middle', transition: 'transform 120ms', transform: open ? 'rotate(90deg)' : undefined }}
      >
        {expandable && <IconChevronRight size={12} />}
      </Box>
      {row.name !== undefined && (
        <>
          <span style={{ color: typeof row.name === 'number' ? 'var(--mantine-color-dimmed)' : 'var(--mantine-color-indigo-text)', fontWeight: 600 }}>
            {typeof row.name === 'number' ? row.name : JSON.stringify(row.name)}
          </span>
          <span style={{ color: 'var(--mantine-color-dimmed)' }}>: </span>
        </>
      )}
      {isContainer(row.value) ? <ContainerSummary value={row.value} open={open} /> : <Scalar value={row.value} />}
    </>
  );
}

function ContainerSummary({ value, open }: { value: Container; open: boolean }) {
  const size = Array.isArray(value) ? value.length : Object.keys(value).length;
  const noun = Array.isArray(value) ? (size === 1 ? 'item' : 'items') : size === 1 ? 'key' : 'keys';
  const [start, end] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return (
    <span style={{ color: 'var(--mantine-color-dimmed)' }}>
      {start}
      {open || size === 0 ? '' : '…'}
      {end} {size.toLocaleString()} {noun}
    </span>
  );
}

function Scalar({ value }: { value: unknown }): ReactNode {
  if (typeof value === 'string') return <span style={{ color: 'var(--mantine-color-teal-text)' }}>{JSON.stringify(value)}</span>;
  if (typeof value === 'number') return <span style={{ color: 'var(--mantine-color-blue-text)' }}>{String(value)}</span>;
  if (typeof value === 'boolean') return <span style={{ color: 'var(--mantine-color-grape-text)' }}>{String(value)}</span>;
  if (value === null) return <span style={{ color: 'var(--mantine-color-grape-text)' }}>null</span>;
  return <span style={{ color: 'var(--mantine-color-dimmed)' }}>{String(value)}</span>;
}
