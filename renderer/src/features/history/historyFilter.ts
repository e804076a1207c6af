import { CallerVia } from '../../../../shared/caller';
import type { InvocationFilter } from '../../../../shared/history';
import { InvocationStatus, SourceKind, type InvocationRecord } from '../../../../shared/invocation';
import { windowOf, type RangeKey, type RangePreset, type TimeRange } from '../metrics/timeRange';

/** What the filter bar holds; `source` is spelled `kind:name` like `mcp:everything`. */
export interface HistoryFilters {
  source: string | null;
  tool: string | null;
  status: InvocationStatus[];
  range: TimeRange;
  text: string;
  /** A W3C trace id: the calls of one trace (used once it is 32 hex digits). */
  trace: string;
  /** Only the calls of this collection run or load run. */
  run: string | null;
  /** Only the calls that came in this way (UI, CLI, a run, …). */
  via: CallerVia | null;
  /** Only the operator's own calls (`OPERATOR_CHOICE`) or one agent's (`agent:<name>`, see agentChoice). */
  caller: string | null;
  /** Only the calls one replica (Tooldeck process) recorded, when a shared history holds several. */
  replica?: string | null;
}

/** The caller choice for the operator's own calls. */
export const OPERATOR_CHOICE = 'operator';

/** The caller choice for one agent's calls; prefixed so an agent named "operator" stays an agent. */
export function agentChoice(agent: string): string {
  return `agent:${agent}`;
}

/** The history filter's `agent` for a caller choice: null for the operator's calls, the name for an agent's. */
function agentOf(caller: string): string | null | undefined {
  if (caller === OPERATOR_CHOICE) return null;
  return caller.startsWith('agent:') && caller.length > 'agent:'.length ? caller.slice('agent:'.length) : undefined;
}

export const NO_FILTERS: HistoryFilters = { source: null, tool: null, status: [], range: { key: 'all' }, text: '', trace: '', run: null, via: null, caller: null };

const TRACE_ID = /^[0-9a-f]{32}$/;

/** The trace id the field holds, normalized, when it is one. */
export function traceIdOf(value: string): string | undefined {
  const id = value.trim().toLowerCase();
  return TRACE_ID.test(id) ? id : undefined;
}

/** `mcp:everything` → { sourceKind: 'mcp', sourceName: 'everything' }; undefined when not `kind:name`. */
export function splitSource(source: string): { sourceKind: SourceKind; sourceName: string } | undefined {
  const at = source.indexOf(':');
  const kind = SourceKind.safeParse(source.slice(0, at));
  const name = source.slice(at + 1);
  return at > 0 && kind.success && name ? { sourceKind: kind.data, sourceName: name } : undefined;
}

/** The store's filter for these settings; a relative range is anchored at `now`. */
export function toInvocationFilter(filters: HistoryFilters, now: number): InvocationFilter {
  const source = filters.source ? splitSource(filters.source) : undefined;
  const window = windowOf(filters.range, now);
  const text = filters.text.trim();
  const agent = filters.caller ? agentOf(filters.caller) : undefined;
  return {
    ...source,
    ...(filters.tool ? { tool: filters.tool } : {}),
    ...(filters.status.length ? { status: filters.status } : {}),
    ...(window.since !== undefined ? { since: window.since } : {}),
    // A relative range stays open at the top so calls made later still belong to it.
    ...(filters.range.key === 'custom' ? { until: window.until } : {}),
    ...(text ? { text } : {}),
    ...(traceIdOf(filters.trace) ? { traceId: traceIdOf(filters.trace) } : {}),
    ...(filters.run ? { runId: filters.run } : {}),
    ...(filters.via ? { via: filters.via } : {}),
    ...(agent !== undefined ? { agent } : {}),
    ...(filters.replica ? { replica: filters.replica } : {}),
  };
}

/** The store's own matching, for calls that arrive live: same fields, same case-insensitive search. */
export function matchesFilter(record: InvocationRecord, filter: InvocationFilter): boolean {
  if (filter.sourceKind !== undefined && record.sourceKind !== filter.sourceKind) return false;
  if (filter.sourceName !== undefined && record.sourceName !== filter.sourceName) return false;
  if (filter.tool !== undefined && record.tool !== filter.tool) return false;
  if (filter.status?.length && !filter.status.includes(record.status)) return false;
  if (filter.since !== undefined && record.startedAt < filter.since) return false;
  if (filter.until !== undefined && record.startedAt >= filter.until) return false;
  if (filter.runId !== undefined && record.runId !== filter.runId) return false;
  if (filter.traceId !== undefined && record.traceId !== filter.traceId) return false;
  if (filter.taskId !== undefined && record.taskId !== filter.taskId) return false;
  if (filter.via !== undefined && record.via !== filter.via) return false;
  if (filter.agent !== undefined && (record.agent ?? null) !== filter.agent) return false;
  if (filter.replica !== undefined && record.replica !== filter.replica) return false;
  if (filter.text) {
    const needle = filter.text.toLowerCase();
    const fields = [record.tool, record.argumentsJson, record.resultPreview, record.errorMessage ?? ''];
    if (!fields.some((field) => field.toLowerCase().includes(needle))) return false;
  }
  return true;
}

export function hasFilters(filters: HistoryFilters): boolean {
  return Boolean(filters.source || filters.tool || filters.status.length || filters.text.trim() || filters.trace.trim() || filters.range.key !== 'all' || filters.run || filters.via || filters.caller || filters.replica);
}

const LINKABLE_RANGES: (RangePreset | 'all')[] = ['15m', '1h', '24h', '7d', 'all'];

/**
 * Filters a link may carry (`?source=mcp:everything&tool=echo&status=error,timeout&range=1h&run=<id>`), so
 * other views can open History already narrowed down.
 */
export function filtersFromParams(params: Record<string, string>): HistoryFilters {
  const status = (params.status ?? '')
    .split(',')
    .map((s) => InvocationStatus.safeParse(s))
    .flatMap((s) => (s.success ? [s.data] : []));
  const range = LINKABLE_RANGES.find((key) => key === params.range);
  const via = CallerVia.safeParse(params.via);
  return {
    source: params.source && splitSource(params.source) ? params.source : null,
    tool: params.tool || null,
    status,
    range: range ? { key: range } : NO_FILTERS.range,
    text: params.q ?? '',
    trace: traceIdOf(params.trace ?? '') ?? '',
    run: params.run || null,
    via: via.success ? via.data : null,
    caller: params.agent ? agentChoice(params.agent) : null,
    ...(params.replica ? { replica: params.replica } : {}),
  };
}

/** The link form of `filtersFromParams`, for views that send the user to History. */
export function filterParams(filters: Partial<Pick<HistoryFilters, 'source' | 'tool' | 'status' | 'trace'>> & { range?: RangeKey }): Record<string, string> {
  return {
    ...(filters.trace && traceIdOf(filters.trace) ? { trace: traceIdOf(filters.trace)! } : {}),
    ...(filters.source ? { source: filters.source } : {}),
    ...(filters.tool ? { tool: filters.tool } : {}),
    ...(filters.status?.length ? { status: filters.status.join(',') } : {}),
    ...(filters.range && filters.range !== 'custom' ? { range: filters.range } : {}),
  };
}
