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
}

export const NO_FILTERS: HistoryFilters = { source: null, tool: null, status: [], range: { key: 'all' }, text: '', trace: '', run: null };

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
  if (filter.text) {
    const needle = filter.text.toLowerCase();
    const fields = [record.tool, record.argumentsJson, record.resultPreview, record.errorMessage ?? ''];
    if (!fields.some((field) => field.toLowerCase().includes(needle))) return false;
  }
  return true;
}

export function hasFilters(filters: HistoryFilters): boolean {
  return Boolean(filters.source || filters.tool || filters.status.length || filters.text.trim() || filters.trace.trim() || filters.range.key !== 'all' || filters.run);
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
  return {
    source: params.source && splitSource(params.source) ? params.source : null,
    tool: params.tool || null,
    status,
    range: range ? { key: range } : NO_FILTERS.range,
    text: params.q ?? '',
    trace: traceIdOf(params.trace ?? '') ?? '',
    run: params.run || null,
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
