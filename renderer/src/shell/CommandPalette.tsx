import { Badge, CloseButton, Group, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { Spotlight, spotlight } from '@mantine/spotlight';
import { IconBolt, IconRobot, IconSearch, IconServer2, IconTool } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { SearchHit } from '../../../shared/registry';
import { useTRPC } from '../rpc/client';
import { sections } from './sections';
import { useNavigate } from './useSection';

const HIT_KIND = {
  tool: { icon: IconTool, label: 'Tool' },
  skill: { icon: IconBolt, label: 'Skill' },
  agent: { icon: IconRobot, label: 'Agent' },
} as const;

/** Where a hit leads: tools and skills to the tool browser; A2A agents to Agents; pod agents to their tool access. */
function hitLocation(hit: SearchHit): [string, Record<string, string>] {
  if (hit.kind !== 'agent') return ['tools', { tool: hit.id }];
  if (hit.id.startsWith('pod:')) return ['tools', { view: 'agents', agent: hit.id.slice(4) }];
  return ['agents', { agent: hit.name }];
}

/**
 * Ctrl/Cmd-K: jump to any tool, skill or agent (ranked by the registry's BM25 search over names,
 * titles, descriptions, sources and tags), any saved server, or any section.
 */
export function CommandPalette() {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const [query, setQuery] = useState('');
  const [debounced] = useDebouncedValue(query, 120);
  const hits = useQuery({
    ...trpc.tools.search.queryOptions({ query: debounced, limit: 12 }),
    enabled: debounced.trim().length > 0,
    placeholderData: keepPreviousData,
  });
  const servers = useQuery(trpc.mcp.list.queryOptions());
  const needle = query.trim().toLowerCase();

  const hitAction = (hit: SearchHit) => {
    const kind = HIT_KIND[hit.kind];
    return (
      <Spotlight.Action key={`${hit.kind}:${hit.id}`} onClick={() => navigate(...hitLocation(hit))} aria-label={`${kind.label} ${hit.id}`}>
        <Group wrap="nowrap" gap="sm" w="100%">
          <kind.icon size={16} />
          <div style={{ flex: 1, minWidth: 0 }}>
            <Text size="sm" fw={600} ff="monospace" truncate="end">
              {hit.name}
            </Text>
            <Text size="xs" c="dimmed" truncate="end">
              {hit.description}
            </Text>
          </div>
          {hit.verdict && hit.verdict !== 'allow' && (
            <Badge size="xs" variant="light" color={hit.verdict === 'deny' ? 'red' : 'yellow'}>
              {hit.verdict === 'deny' ? 'denied' : 'needs approval'}
            </Badge>
          )}
          <Badge size="xs" variant="outline">
            {hit.source}
          </Badge>
        </Group>
      </Spotlight.Action>
    );
  };
  const ranked = needle ? (hits.data ?? []) : [];
  const toolActions = ranked.filter((hit) => hit.kind !== 'agent').map(hitAction);
  const agentActions = ranked.filter((hit) => hit.kind === 'agent').map(hitAction);
  const serverActions = (servers.data ?? [])
    .filter((s) => !needle || s.config.name.toLowerCase().includes(needle))
    .slice(0, 6)
    .map((s) => (
      <Spotlight.Action
        key={`server:${s.config.name}`}
        onClick={() => navigate('servers', { server: s.config.name })}
        leftSection={<IconServer2 size={16} />}
        label={s.config.name}
        description={`${s.config.transport} server · ${s.state.status}`}
      />
    ));
  const sectionActions = sections
    .filter((s) => !needle || s.label.toLowerCase().includes(needle))
    .map((s) => <Spotlight.Action key={`section:${s.id}`} onClick={() => navigate(s.id)} leftSection={<s.icon size={16} />} label={`Go to ${s.label}`} />);

  return (
    <Spotlight.Root query={query} onQueryChange={setQuery} shortcut={['mod + K', '/']} scrollable maxHeight={480} clearQueryOnClose>
      <Spotlight.Search
        placeholder="Search tools, agents, servers, sections…"
        leftSection={<IconSearch size={18} />}
        aria-label="Command palette search"
        rightSectionPointerEvents="all"
        rightSection={query ? <CloseButton size="sm" aria-label="Clear search" onClick={() => setQuery('')} /> : undefined}
      />
      <Spotlight.ActionsList aria-label="Command palette results">
        {toolActions.length > 0 && <Spotlight.ActionsGroup label="Tools and skills">{toolActions}</Spotlight.ActionsGroup>}
        {agentActions.length > 0 && <Spotlight.ActionsGroup label="Agents">{agentActions}</Spotlight.ActionsGroup>}
        {serverActions.length > 0 && <Spotlight.ActionsGroup label="Servers">{serverActions}</Spotlight.ActionsGroup>}
        {sectionActions.length > 0 && <Spotlight.ActionsGroup label="Sections">{sectionActions}</Spotlight.ActionsGroup>}
        {toolActions.length + agentActions.length + serverActions.length + sectionActions.length === 0 && <Spotlight.Empty>Nothing matches “{query}”.</Spotlight.Empty>}
      </Spotlight.ActionsList>
    </Spotlight.Root>
  );
}

export const openCommandPalette = () => spotlight.open();
