import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { InvocationStatus, type SourceKind } from '../../shared/invocation';

export const MINUTE_MS = 60_000;

/** Bounds the blob rewritten per batch, so a busy minute does not cost a growing rewrite each time. */
export const CHUNK_CAPACITY = 4096;

/** Position in InvocationStatus.options; the enum only ever grows at the end, so stored indexes stay valid. */
export const STATUS_INDEX = new Map<InvocationStatus, number>(InvocationStatus.options.map((status, i) => [status, i]));
export const OK_STATUS_INDEX = STATUS_INDEX.get('ok')!;

export interface RollupEntry {
  startedAt: number;
  sourceKind: SourceKind;
  sourceName: string;
  tool: string;
  status: InvocationStatus;
  latencyMs: number;
}

/** [sourceKind, sourceName, tool] */
export type RollupGroup = [SourceKind, string, string];

/**
 * One stored chunk. The latencies of calls with the same group and status sit next to each other:
 * segment j covers `segments[3j + 2]` latencies of group `groups[segments[3j]]` with status index
 * `segments[3j + 1]`, after the latencies of segments 0..j-1. A filter then takes or skips whole
 * segments instead of looking at every call.
 */
export interface RollupChunk {
  minute: number;
  chunk: number;
  entries: number;
  groups: RollupGroup[];
  segments: Uint16Array;
  latencies: Float64Array;
}

const groupKey = (kind: string, name: string, tool: string) => `${kind}\u0000${name}\u0000${tool}`;

/** A typed view of a blob; copied only when the blob does not start at a multiple of the element size. */
function view<A extends Float64Array | Uint16Array>(blob: Uint8Array, Typed: { new (buffer: ArrayBuffer, offset?: number, length?: number): A; BYTES_PER_ELEMENT: number }): A {
  const size = Typed.BYTES_PER_ELEMENT;
  if (blob.byteOffset % size === 0) return new Typed(blob.buffer as ArrayBuffer, blob.byteOffset, blob.byteLength / size);
  return new Typed(blob.slice().buffer);
}

// Typed arrays use the platform's byte order; every platform Tooldeck ships on is little-endian.
export const bytes = (typed: ArrayBufferView) => new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);

/**
 * Per-minute packed latencies, kept in the same transaction as the rows they summarize. A minute
 * holds one or more chunks of up to CHUNK_CAPACITY calls, each with every call's exact latency, so
 * percentiles computed from it are exact.
 */
export class LatencyRollup {
  private readonly lastChunk: StatementSync;
  private readonly upsert: StatementSync;
  private readonly range: StatementSync;
  private readonly deleteBeforeStmt: StatementSync;
  private readonly deleteMinuteStmt: StatementSync;
  private readonly rowsOfMinute: StatementSync;

  constructor(db: DatabaseSync) {
    const columns = 'minute, chunk, entries, groups, segments, latencies';
    this.lastChunk = db.prepare(`SELECT ${columns} FROM latency_rollup WHERE minute = ? ORDER BY chunk DESC LIMIT 1`);
    this.lastChunk.setReturnArrays(true);
    this.upsert = db.prepare(`INSERT OR REPLACE INTO latency_rollup (${columns}) VALUES (?, ?, ?, ?, ?, ?)`);
    this.range = db.prepare(`SELECT ${columns} FROM latency_rollup WHERE minute >= ? AND minute < ?`);
    this.range.setReturnArrays(true);
    this.deleteBeforeStmt = db.prepare('DELETE FROM latency_rollup WHERE minute < ?');
    this.deleteMinuteStmt = db.prepare('DELETE FROM latency_rollup WHERE minute = ?');
    this.rowsOfMinute = db.prepare(
      'SELECT started_at AS startedAt, source_kind AS sourceKind, source_name AS sourceName, tool, status, latency_ms AS latencyMs FROM invocations WHERE started_at >= ? AND started_at < ? ORDER BY seq',
    );
  }

  /** Call inside the transaction that inserted the rows. */
  append(entries: readonly RollupEntry[]): void {
    const byMinute = new Map<number, RollupEntry[]>();
    for (const entry of entries) {
      const minute = Math.floor(entry.startedAt / MINUTE_MS);
      let list = byMinute.get(minute);
      if (!list) byMinute.set(minute, (list = []));
      list.push(entry);
    }
    for (const [minute, list] of byMinute) {
      const last = this.lastChunk.get(minute) as unknown as unknown[] | undefined;
      let chunk = last ? decode(last) : emptyChunk(minute, 0);
      let offset = 0;
      while (offset < list.length) {
        if (chunk.entries >= CHUNK_CAPACITY) chunk = emptyChunk(minute, chunk.chunk + 1);
        const take = Math.min(CHUNK_CAPACITY - chunk.entries, list.length - offset);
        chunk = extend(chunk, list.slice(offset, offset + take));
        offset += take;
        this.upsert.run(chunk.minute, chunk.chunk, chunk.entries, JSON.stringify(chunk.groups), bytes(chunk.segments), bytes(chunk.latencies));
      }
    }
  }

  /** Chunks of minutes in [fromMinute, toMinute). */
  *chunks(fromMinute: number, toMinute: number): Generator<RollupChunk> {
    for (const row of this.range.iterate(fromMinute, toMinute) as Iterable<unknown[]>) yield decode(row);
  }

  deleteBefore(minute: number): void {
    this.deleteBeforeStmt.run(minute);
  }

  /** Recomputes one minute from the rows left in invocations (after retention cut into it). */
  rebuildMinute(minute: number): void {
    this.deleteMinuteStmt.run(minute);
    this.append(this.rowsOfMinute.all(minute * MINUTE_MS, (minute + 1) * MINUTE_MS) as unknown as RollupEntry[]);
  }
}

export function emptyChunk(minute: number, chunk: number): RollupChunk {
  return { minute, chunk, entries: 0, groups: [], segments: new Uint16Array(0), latencies: new Float64Array(0) };
}

/** The chunk with `added` merged into its segments (a new segment per new group and status). */
export function extend(chunk: RollupChunk, added: readonly RollupEntry[]): RollupChunk {
  const groups = chunk.groups.slice();
  const groupOf = new Map(groups.map((g, i) => [groupKey(...g), i]));
  const segments = new Map<number, { group: number; status: number; values: number[] }>();
  const segment = (group: number, status: number) => {
    const key = group * 256 + status;
    let found = segments.get(key);
    if (!found) segments.set(key, (found = { group, status, values: [] }));
    return found;
  };
  let at = 0;
  for (let j = 0; j < chunk.segments.length; j += 3) {
    const length = chunk.segments[j + 2]!;
    segment(chunk.segments[j]!, chunk.segments[j + 1]!).values.push(...chunk.latencies.subarray(at, at + length));
    at += length;
  }
  for (const entry of added) {
    const key = groupKey(entry.sourceKind, entry.sourceName, entry.tool);
    let group = groupOf.get(key);
    if (group === undefined) {
      group = groups.push([entry.sourceKind, entry.sourceName, entry.tool]) - 1;
      groupOf.set(key, group);
    }
    segment(group, STATUS_INDEX.get(entry.status) ?? 0).values.push(entry.latencyMs);
  }
  const table = new Uint16Array(segments.size * 3);
  const latencies = new Float64Array(chunk.entries + added.length);
  let j = 0;
  at = 0;
  for (const { group, status, values } of segments.values()) {
    table.set([group, status, values.length], j);
    latencies.set(values, at);
    j += 3;
    at += values.length;
  }
  return { minute: chunk.minute, chunk: chunk.chunk, entries: latencies.length, groups, segments: table, latencies };
}

export function decode(row: unknown[]): RollupChunk {
  const [minute, chunk, entries, groups, segments, latencies] = row as [number, number, number, string, Uint8Array, Uint8Array];
  return { minute, chunk, entries, groups: JSON.parse(groups) as RollupGroup[], segments: view(segments, Uint16Array), latencies: view(latencies, Float64Array) };
}
