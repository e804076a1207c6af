import { Badge, Box, Group, Text, UnstyledButton } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useMemo, useRef, useState } from 'react';
import type { ToolReview } from '../../../../shared/lock';
import type { McpTool, ServerSnapshot } from '../../../../shared/mcp';
import { REVIEW_COLOR } from '../lock/reviewColors';
import { AnnotationBadges } from '../tools/AnnotationBadges';
import classes from './ServerToolsTab.module.css';
import { ClearableTextInput } from '../../components/ClearableTextInput';

const ROW_HEIGHT = 44;

/** Lower-cased text a tool is found by: its name, title and description. */
function haystack(tool: McpTool): string {
  return `${tool.name}\n${tool.title ?? tool.annotations?.title ?? ''}\n${tool.description ?? ''}`.toLowerCase();
}

type ReviewState = ToolReview['state'];

const ToolRow = memo(function ToolRow({ tool, excluded, held, onOpen, top }: { tool: McpTool; excluded: boolean; held?: ReviewState; onOpen: (name: string) => void; top: number }) {
  return (
    <UnstyledButton
      role="row"
      aria-label={`${tool.name}${excluded ? ' (excluded)' : ''} ${tool.description ?? ''}`.trim()}
      onClick={() => onOpen(tool.name)}
      style={{ position: 'absolute', top, left: 0, right: 0, height: ROW_HEIGHT, display: 'flex', alignItems: 'center', gap: 12, padding: '0 10px', borderBottom: '1px solid var(--mantine-color-default-border)' }}
      className={classes.row}
    >
      {/* A fixed-height row cannot wrap a long name: it is cut with its full text as the title, and the badge never shrinks. */}
      <Group role="cell" gap={6} wrap="nowrap" w={280} style={{ flexShrink: 0 }}>
        <Text fw={600} ff="monospace" size="sm" truncate="end" c={excluded ? 'dimmed' : undefined} title={tool.name} style={{ minWidth: 0 }}>
          {tool.name}
        </Text>
        {excluded && (
          <Badge size="xs" variant="outline" color="gray" style={{ flexShrink: 0, overflow: 'visible' }}>
            excluded
          </Badge>
        )}
      </Group>
      <Text role="cell" size="sm" c="dimmed" truncate="end" style={{ flex: 1, minWidth: 0 }}>
        {tool.description}
      </Text>
      <Group role="cell" gap={4} wrap="nowrap" w={250} style={{ flexShrink: 0 }}>
        {held && (
          <Badge size="xs" color={REVIEW_COLOR[held]} variant="filled">
            {held}
          </Badge>
        )}
        <AnnotationBadges annotations={tool.annotations} tooltips={false} />
      </Group>
    </UnstyledButton>
  );
});

/**
 * A server's tools: searchable by name, title and description, and virtualized so that a
 * 1,000-tool server keeps a few dozen rows in the page, not a thousand. Memoized: the server view
 * renders again on every click and status push, and the tools rarely change with them.
 */
export const ServerToolsTab = memo(function ServerToolsTab({
  server,
  tools,
  ready,
  listing,
  excluded,
  held,
  onOpen,
}: {
  server: string;
  tools: McpTool[];
  ready: boolean;
  listing?: boolean;
  /** Tools the workspace's tool_filter keeps out of the registry: listed, marked, and opened to say why. */
  excluded?: ServerSnapshot['excludedTools'];
  /** Tools whose definitions wait for review against tooldeck.lock. */
  held?: ReadonlyMap<string, ReviewState>;
  onOpen: (tool: string) => void;
}) {
  const [query, setQuery] = useState('');
  const [debounced] = useDebouncedValue(query, 80);
  const index = useMemo(() => tools.map((tool) => ({ tool, text: haystack(tool) })), [tools]);
  const shown = useMemo(() => {
    const words = debounced.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return tools;
    return index.filter(({ text }) => words.every((w) => text.includes(w))).map(({ tool }) => tool);
  }, [index, tools, debounced]);
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: shown.length, getScrollElement: () => parent.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });

  if (tools.length === 0) return <Text c="dimmed" size="sm">{listing ? 'Listing its tools…' : ready ? 'This server has no tools.' : 'Connect to see its tools.'}</Text>;
  return (
    <Box>
      <Group gap="sm" mb="xs" wrap="nowrap">
        <ClearableTextInput
          style={{ flex: 1, maxWidth: 420 }}
          size="sm"
          aria-label={`Search tools of ${server}`}
          placeholder="Search name, title, description"
          leftSection={<IconSearch size={14} />}
          value={query}
          onValueChange={setQuery}
          clearLabel="Clear search"
        />
        <Text size="xs" c="dimmed" role="status">
          {shown.length === tools.length ? `${tools.length} tools` : `${shown.length} of ${tools.length} tools`}
        </Text>
      </Group>
      <div ref={parent} role="table" aria-label={`Tools of ${server}`} aria-rowcount={shown.length} style={{ height: 'min(calc(100dvh - 380px), ' + Math.max(ROW_HEIGHT, shown.length * ROW_HEIGHT) + 'px)', minHeight: ROW_HEIGHT * 3, overflow: 'auto', border: '1px solid var(--mantine-color-default-border)', borderRadius: 'var(--mantine-radius-md)' }}>
        {shown.length === 0 ? (
          <Text c="dimmed" size="sm" p="md">
            No tool matches “{debounced}”.
          </Text>
        ) : (
          <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((row) => (
              <ToolRow key={shown[row.index]!.name} tool={shown[row.index]!} excluded={Boolean(excluded?.[shown[row.index]!.name])} held={held?.get(shown[row.index]!.name)} top={row.start} onOpen={onOpen} />
            ))}
          </div>
        )}
      </div>
    </Box>
  );
});
