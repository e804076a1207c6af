import { z } from 'zod';
import { RunSummary } from './collections';
import { LoadSummary } from './loadRuns';

// A run of a collection — one pass through its requests, or a load run — kept in history as one
// item with its summary; its calls carry its run id.

export const RunKind = z.enum(['collection', 'load']);
export type RunKind = z.infer<typeof RunKind>;

/** What a list of runs shows without reading each summary. */
export const RunListItem = z.object({
  runId: z.string(),
  kind: RunKind,
  collection: z.string(),
  startedAt: z.number(),
  durationMs: z.number(),
  ok: z.boolean(),
  canceled: z.boolean(),
  /** Calls the run made. */
  requests: z.number().int(),
  /** Calls that did not pass. */
  failures: z.number().int(),
  /** Load runs: achieved rate and the 95th percentile (ms). */
  achievedRps: z.number().optional(),
  p95Ms: z.number().nullable().optional(),
});
export type RunListItem = z.infer<typeof RunListItem>;

export const StoredRun = z.discriminatedUnion('kind', [
  RunListItem.extend({ kind: z.literal('collection'), summary: RunSummary }),
  RunListItem.extend({ kind: z.literal('load'), summary: LoadSummary }),
]);
export type StoredRun = z.infer<typeof StoredRun>;

export const RunListQuery = z.object({
  kind: RunKind.optional(),
  collection: z.string().optional(),
  limit: z.number().int().min(1).max(500).optional(),
});
export type RunListQuery = z.infer<typeof RunListQuery>;

/** The list item of a finished run, from its summary. */
export function runListItem(run: { kind: 'collection'; summary: RunSummary } | { kind: 'load'; summary: LoadSummary }): RunListItem {
  if (run.kind === 'collection') {
    const s = run.summary;
    return {
      runId: s.runId,
      kind: 'collection',
      collection: s.collection,
      startedAt: s.startedAt,
      durationMs: s.durationMs,
      ok: s.ok,
      canceled: s.canceled,
      requests: s.requests.total - s.requests.skipped,
      failures: s.requests.failed + s.requests.errored,
    };
  }
  const s = run.summary;
  return {
    runId: s.runId,
    kind: 'load',
    collection: s.collection,
    startedAt: s.startedAt,
    durationMs: s.durationMs,
    ok: s.ok,
    canceled: s.canceled,
    requests: s.requests,
    failures: s.errors,
    achievedRps: s.achievedRps,
    p95Ms: s.latency.p95,
  };
}
