import { Badge, CloseButton, Group, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { createSpotlight, Spotlight, type SpotlightStore } from '@mantine/spotlight';
import { IconApi, IconBolt, IconRobot, IconSearch, IconServer2, IconServerBolt, IconTool } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState, type ReactElement } from 'react';
import type { GrpcSourceView } from '../../../shared/grpc';
import type { HttpServiceView } from '../../../shared/httpServices';
import type { ServerSnapshot } from '../../../shared/mcp';
import type { SearchHit } from '../../../shared/registry';
import type { McpServerResourceView } from '../../../shared/resources/statuses';
import { useTRPC } from '../rpc/client';
import { sections } from './sections';
import { useNavigate } from './useSection';
import { verdictWord } from '../components/verdictWords';

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

/** How a name answers what was typed (`needle`, trimmed and lowercased); undefined: not at all, or too weakly to list. */
export type NameMatch = 'exact' | 'prefix' | 'word';

/**
 * Exact beats a prefix beats the start of a word inside the name ("prod" in "eu-prod-db", "Issue"
 * in "createIssue"). Letters in the middle of a word ("rod", "thing" in "everything") are not a
 * match: listed, they would only pad the palette.
 */
export function nameMatch(name: string, needle: string): NameMatch | undefined {
  if (!needle) return undefined;
  const lower = name.toLowerCase();
  if (lower === needle) return 'exact';
  if (lower.startsWith(needle)) return 'prefix';
  for (let at = lower.indexOf(needle, 1); at > 0; at = lower.indexOf(needle, at + 1)) {
    const before = name[at - 1]!;
    const wordStart = !/[a-z0-9]/i.test(before) || (/[a-z0-9]/.test(before) && /[A-Z]/.test(name[at]!));
    if (wordStart) return 'word';
  }
  return undefined;
}

const MATCH_RANK: Record<NameMatch, number> = { exact: 0, prefix: 1, word: 2 };

/** The palette's own store: the shell opens it, and the list's first action is marked from here (see preselectFirstAction). */
const [paletteStore, palette] = createSpotlight();

/**
 * Marks the first action of the list as the selected one, so Enter runs the best match without an
 * ArrowDown first. Called whenever the list changes: Spotlight marks an action only in the tick
 * after a keystroke, before the registry's answer (debounced, then fetched) is drawn, so the best
 * match drawn later was never marked, and Enter did nothing (or ran a stale action).
 */
export function preselectFirstAction(store: SpotlightStore): void {
  const { listId } = store.getState();
  const list = listId ? document.getElementById(listId) : null;
  const first = list?.querySelector('[data-action]');
  if (!list || !first) return;
  for (const marked of list.querySelectorAll('[data-selected]')) marked.removeAttribute('data-selected');
  first.setAttribute('data-selected', 'true');
  store.updateState((state) => ({ ...state, selected: 0 }));
}

/** The items whose name matches what was typed, best match first (all of them, unranked, when nothing is typed). */
function matchingByName<T>(items: readonly T[], nameOf: (item: T) => string, needle: string): Array<{ item: T; match: NameMatch | undefined }> {
  if (!needle) return items.map((item) => ({ item, match: undefined }));
  return items
    .map((item) => ({ item, match: nameMatch(nameOf(item), needle) }))
    .filter(({ match }) => match !== undefined)
    .sort((a, b) => MATCH_RANK[a.match!] - MATCH_RANK[b.match!]);
}

/** Where a server is declared, as the Servers list says it: `saved`, `workspace · <file>` or `provided · <by>`. */
export function serverOrigin(server: ServerSnapshot): string {
  if (server.origin?.kind === 'workspace') return `workspace · ${server.origin.file}`;
  return server.origin?.kind === 'provided' ? `provided · ${server.origin.by}` : 'saved';
}

/**
 * A source of registry entries in the palette: an MCP server the MCP service holds, a workspace
 * McpServer it does not (its spec or config has a problem), a gRPC source or an HTTP service.
 * (A2A agents come as agent hits of the search.)
 */
type PaletteServer =
  | { name: string; held: ServerSnapshot }
  | { name: string; unheld: McpServerResourceView }
  | { name: string; grpc: GrpcSourceView }
  | { name: string; http: HttpServiceView };

const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** What a gRPC source's action says under its name: protocol, state (with the failure) and address. */
export function grpcSourceDescription(source: GrpcSourceView): string {
  const state = source.error ? `${source.state}: ${source.error.message.slice(0, MAX_ERROR_CHARS)}` : source.state;
  const count = source.protocol === 'tools.v1' ? counted(source.tools.length, 'tool') : counted(source.services.reduce((sum, service) => sum + service.methods.length, 0), 'method');
  return `gRPC ${source.protocol} · ${count} · ${state} · ${source.address}${source.managedBy ? ' · workspace' : ''}`;
}

/**
 * The workspace's McpServer resources the MCP service does not hold: an invalid spec, a value that
 * cannot be resolved, a name another file owns. Listed with their phase and error so the palette
 * shows every server the console knows, as `tooldeck mcp list` does. A saved server shadows a
 * workspace one of the same name (it is the one that runs).
 */
export function unheldWorkspaceServers(held: readonly ServerSnapshot[], resources: readonly McpServerResourceView[]): McpServerResourceView[] {
  return resources.filter(
    (resource) => !held.some((server) => server.config.name === resource.name && (server.origin?.kind !== 'workspace' || server.origin.file === resource.source.file)),
  );
}

const MAX_ERROR_CHARS = 160;

/**
 * Search hits scoring under this share of the best hit are weak (a word once in a long
 * description): the palette leaves them out rather than fill its list with them.
 */
export const MIN_HIT_SCORE = 0.3;

interface Ranked {
  element: ReactElement;
  exact: boolean;
}

/**
 * Ctrl/Cmd-K: jump to any tool, skill or agent (ranked by the registry's BM25 search over names,
 * titles, descriptions, sources and tags), any server (saved or in the workspace, each with its
 * origin), or any section. What is named exactly as typed (a server, an agent, a section, a tool)
 * comes first, under "Best match"; weak matches are left out (see nameMatch and MIN_HIT_SCORE).
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
  const grpcSources = useQuery(trpc.grpc.list.queryOptions());
  const httpServices = useQuery(trpc.http.list.queryOptions());
  const statuses = useQuery(trpc.resources.statuses.queryOptions());
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
              {verdictWord(hit.verdict)}
            </Badge>
          )}
          <Badge size="xs" variant="outline">
            {hit.source}
          </Badge>
        </Group>
      </Spotlight.Action>
    );
  };

  const paletteServers: PaletteServer[] = [
    ...(servers.data ?? []).map((held) => ({ name: held.config.name, held })),
    ...unheldWorkspaceServers(servers.data ?? [], statuses.data?.mcpServers ?? []).map((unheld) => ({ name: unheld.name, unheld })),
    ...(grpcSources.data ?? []).map((grpc) => ({ name: grpc.name, grpc })),
    ...(httpServices.data ?? []).map((http) => ({ name: http.service, http })),
  ];
  const serverMatches = matchingByName(paletteServers, (s) => s.name, needle).slice(0, 6);
  const sectionMatches = matchingByName(sections, (s) => s.label, needle);
  const ranked = needle ? (hits.data ?? []) : [];
  const hitIsExact = (hit: SearchHit) => nameMatch(hit.name, needle) === 'exact' || hit.id.toLowerCase() === needle;
  const anyExact = serverMatches.some(({ match }) => match === 'exact') || sectionMatches.some(({ match }) => match === 'exact') || ranked.some(hitIsExact);
  // Once something is named exactly as typed, a hit that matched only in its description or
  // source is padding below it: hits stay only when their own name or title matches too.
  const strong = (hit: SearchHit) =>
    hitIsExact(hit) || (hit.score >= MIN_HIT_SCORE && (!anyExact || !!nameMatch(hit.name, needle) || !!(hit.title && nameMatch(hit.title, needle))));
  const hitItems = (kind: 'tools' | 'agents'): Ranked[] =>
    ranked
      .filter((hit) => (kind === 'agents') === (hit.kind === 'agent') && strong(hit))
      .map((hit) => ({ element: hitAction(hit), exact: hitIsExact(hit) }));
  const serverItems: Ranked[] = serverMatches.map(({ item: s, match }) => ({
    exact: match === 'exact',
    element:
      'grpc' in s ? (
        <Spotlight.Action
          key={`grpc:${s.name}`}
          onClick={() => navigate('grpc', { source: s.name })}
          leftSection={<IconServerBolt size={16} />}
          label={s.name}
          description={grpcSourceDescription(s.grpc)}
        />
      ) : 'http' in s ? (
        // HTTP services have no view of their own: their tools are in the tool browser.
        <Spotlight.Action
          key={`http:${s.name}`}
          onClick={() => navigate('tools', s.http.tools[0] ? { tool: `http:${s.name}.${s.http.tools[0]}` } : {})}
          leftSection={<IconApi size={16} />}
          label={s.name}
          description={`HTTP service · ${counted(s.http.tools.length, 'tool')} · ${s.http.error ? `error: ${s.http.error.slice(0, MAX_ERROR_CHARS)}` : s.http.baseUrl}`}
        />
      ) : 'held' in s ? (
        <Spotlight.Action
          key={`server:${s.name}`}
          onClick={() => navigate('servers', { server: s.name })}
          leftSection={<IconServer2 size={16} />}
          label={s.name}
          description={`${s.held.config.transport} server · ${s.held.state.status} · ${serverOrigin(s.held)}`}
        />
      ) : (
        // Not in Servers (the MCP service does not hold it): its file is where it gets fixed.
        <Spotlight.Action
          key={`workspace-server:${s.unheld.source.file}:${s.name}`}
          onClick={() => navigate('resources', { file: s.unheld.source.file })}
          leftSection={<IconServer2 size={16} />}
          label={s.name}
          description={`not connected · ${s.unheld.status.phase}${s.unheld.status.lastError ? `: ${s.unheld.status.lastError.slice(0, MAX_ERROR_CHARS)}` : ''} · workspace · ${s.unheld.source.file}`}
        />
      ),
  }));
  const sectionItems: Ranked[] = sectionMatches.map(({ item: s, match }) => ({
    exact: match === 'exact',
    element: <Spotlight.Action key={`section:${s.id}`} onClick={() => navigate(s.id)} leftSection={<s.icon size={16} />} label={`Go to ${s.label}`} />,
  }));
  const toolItems = hitItems('tools');
  const agentItems = hitItems('agents');
  // The exact matches, servers, agents and sections before tools: typing "github" means the
  // server github, even when a hundred of its tools carry the word too.
  const best = [...serverItems, ...agentItems, ...sectionItems, ...toolItems].filter((item) => item.exact);
  const rest = (items: Ranked[]) => items.filter((item) => !item.exact).map((item) => item.element);
  const toolActions = rest(toolItems);
  const agentActions = rest(agentItems);
  const serverActions = rest(serverItems);
  const sectionActions = rest(sectionItems);
  const shownKeys = [...best, ...toolItems, ...agentItems, ...serverItems, ...sectionItems].map((item) => item.element.key).join('\n');
  useEffect(() => {
    if (needle) preselectFirstAction(paletteStore);
  }, [needle, shownKeys]);

  return (
    <Spotlight.Root store={paletteStore} query={query} onQueryChange={setQuery} shortcut={['mod + K', '/']} scrollable maxHeight={480} clearQueryOnClose>
      <Spotlight.Search
        placeholder="Search tools, agents, servers, sections…"
        leftSection={<IconSearch size={18} />}
        aria-label="Command palette search"
        rightSectionPointerEvents="all"
        rightSection={query ? <CloseButton size="sm" aria-label="Clear search" onClick={() => setQuery('')} /> : undefined}
      />
      <Spotlight.ActionsList aria-label="Command palette results">
        {best.length > 0 && <Spotlight.ActionsGroup label="Best match">{best.map((item) => item.element)}</Spotlight.ActionsGroup>}
        {toolActions.length > 0 && <Spotlight.ActionsGroup label="Tools and skills">{toolActions}</Spotlight.ActionsGroup>}
        {agentActions.length > 0 && <Spotlight.ActionsGroup label="Agents">{agentActions}</Spotlight.ActionsGroup>}
        {serverActions.length > 0 && <Spotlight.ActionsGroup label="Servers">{serverActions}</Spotlight.ActionsGroup>}
        {sectionActions.length > 0 && <Spotlight.ActionsGroup label="Sections">{sectionActions}</Spotlight.ActionsGroup>}
        {best.length + toolActions.length + agentActions.length + serverActions.length + sectionActions.length === 0 && <Spotlight.Empty>Nothing matches “{query}”.</Spotlight.Empty>}
      </Spotlight.ActionsList>
    </Spotlight.Root>
  );
}

export const openCommandPalette = () => palette.open();
