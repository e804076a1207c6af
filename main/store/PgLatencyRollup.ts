import type { InvocationRecord } from '../../shared/invocation';
import { bytes, CHUNK_CAPACITY, decode, emptyChunk, extend, MINUTE_MS, type RollupChunk, type RollupEntry } from './LatencyRollup';

export const ROLLUP = 'tooldeck_latency_rollup';

/** Minutes whose open chunk a writer keeps in memory; calls for older minutes start a new chunk. */
const OPEN_MINUTES = 120;

export interface RollupPlan {
  statement?: { name: string; text: string; values: unknown[] };
  open: Map<number, RollupChunk>;
  nextChunk: number;
}

const UPSERT = `INSERT INTO ${ROLLUP} (minute, writer, chunk, entries, groups, segments, latencies)
  SELECT * FROM unnest($1::int8[], $2::text[], $3::int4[], $4::int4[], $5::text[], $6::bytea[], $7::bytea[])
  ON CONFLICT (minute, writer, chunk) DO UPDATE SET entries = EXCLUDED.entries, groups = EXCLUDED.groups, segments = EXCLUDED.segments, latencies = EXCLUDED.latencies`;

/**
 * One process's share of the PostgreSQL rollup: the per-minute chunks of the calls it inserted,
 * in the SQLite file's format (LatencyRollup.ts), so metric queries read a day in ~1,440 rows per
 * writer and compute the same exact percentiles. Each writer owns its rows (keyed by its id), so
 * it keeps its open chunks in memory and never reads them back; `plan` changes nothing until
 * `commit`, after the transaction that wrote both rows and chunks.
 */
export class PgRollupWriter {
  private open = new Map<number, RollupChunk>();
  private nextChunk = 0;

  constructor(private readonly writer: string) {}

  plan(records: readonly InvocationRecord[]): RollupPlan {
    const open = new Map(this.open);
    let nextChunk = this.nextChunk;
    const byMinute = new Map<number, RollupEntry[]>();
    for (const rec of records) {
      const minute = Math.floor(rec.startedAt / MINUTE_MS);
      let list = byMinute.get(minute);
      if (!list) byMinute.set(minute, (list = []));
      list.push(rec);
    }
    const written = new Map<string, RollupChunk>();
    for (const [minute, list] of byMinute) {
      let chunk = open.get(minute) ?? emptyChunk(minute, nextChunk++);
      let offset = 0;
      while (offset < list.length) {
        if (chunk.entries >= CHUNK_CAPACITY) chunk = emptyChunk(minute, nextChunk++);
        const take = Math.min(CHUNK_CAPACITY - chunk.entries, list.length - offset);
        chunk = extend(chunk, list.slice(offset, offset + take));
        offset += take;
        written.set(`${minute}:${chunk.chunk}`, chunk);
      }
      open.set(minute, chunk);
    }
    while (open.size > OPEN_MINUTES) open.delete(Math.min(...open.keys()));
    return { ...(written.size ? { statement: upsert([...written.values()], this.writer) } : {}), open, nextChunk };
  }

  commit(plan: RollupPlan): void {
    this.open = plan.open;
    this.nextChunk = plan.nextChunk;
  }
}

/** The chunks of `chunks`, under `writer`, as one upsert. */
export function upsert(chunks: readonly RollupChunk[], writer: string): { name: string; text: string; values: unknown[] } {
  return {
    name: 'tooldeck_history_rollup',
    text: UPSERT,
    values: [
      chunks.map((c) => c.minute),
      chunks.map(() => writer),
      chunks.map((c) => c.chunk),
      chunks.map((c) => c.entries),
      chunks.map((c) => JSON.stringify(c.groups)),
      chunks.map((c) => bytes(c.segments)),
      chunks.map((c) => bytes(c.latencies)),
    ],
  };
}

/** The chunks of `entries` (one minute's calls, oldest first), numbered from 0: a minute rebuilt after retention cut into it. */
export function rebuildChunks(minute: number, entries: readonly RollupEntry[]): RollupChunk[] {
  const chunks: RollupChunk[] = [];
  for (let offset = 0; offset < entries.length; offset += CHUNK_CAPACITY) chunks.push(extend(emptyChunk(minute, chunks.length), entries.slice(offset, offset + CHUNK_CAPACITY)));
  return chunks;
}

/** A row of `SELECT minute, chunk, entries, groups, segments, latencies` (array mode) as a chunk. */
export const chunkOfRow = (row: unknown[]): RollupChunk => decode(row);
