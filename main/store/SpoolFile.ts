import { createReadStream, existsSync } from 'node:fs';
import { appendFile, rename, stat, unlink } from 'node:fs/promises';
import { appendFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { InvocationRecord } from '../../shared/invocation';

/**
 * Records the database could not take yet, one JSON object per line in the data dir, so that a
 * long outage neither grows memory without bound nor loses calls when the process ends. Replay
 * renames the file first: records spooled meanwhile start a new file, and a replay cut short (the
 * process killed) is replayed whole next time (the store ignores ids it already has).
 */
export class SpoolFile {
  private chain: Promise<void> = Promise.resolve();
  private bytes: number;
  private readonly replayPath: string;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
  ) {
    this.replayPath = `${path}.replaying`;
    this.bytes = sizeOf(path) + sizeOf(this.replayPath);
  }

  /** Bytes waiting on disk (both files). */
  get size(): number {
    return this.bytes;
  }

  get pending(): boolean {
    return this.bytes > 0;
  }

  /** Appends in order, off the caller's path; resolves to how many records did not fit under the size cap. */
  append(records: readonly InvocationRecord[]): Promise<number> {
    const { text, kept } = this.fit(records);
    const next = this.chain.then(() => (text ? appendFile(this.path, text, { mode: 0o600 }) : undefined));
    this.chain = next.catch(() => undefined);
    return next.then(() => records.length - kept);
  }

  /** Resolves once every append so far is on disk (or failed). */
  idle(): Promise<void> {
    return this.chain;
  }

  /** At exit, when nothing asynchronous will run any more. */
  appendSync(records: readonly InvocationRecord[]): number {
    const { text, kept } = this.fit(records);
    if (text) appendFileSync(this.path, text, { mode: 0o600 });
    return records.length - kept;
  }

  /**
   * Hands every spooled record to `write` in batches of `batchSize`, then removes the file. A write
   * that throws stops the replay and leaves the file for the next one.
   */
  async replay(batchSize: number, write: (batch: InvocationRecord[]) => Promise<void>): Promise<number> {
    await this.chain;
    if (!existsSync(this.replayPath)) {
      if (!existsSync(this.path)) {
        this.bytes = 0;
        return 0;
      }
      await rename(this.path, this.replayPath);
    }
    let replayed = 0;
    let batch: InvocationRecord[] = [];
    const lines = createInterface({ input: createReadStream(this.replayPath, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line.trim()) continue;
      try {
        batch.push(JSON.parse(line) as InvocationRecord);
      } catch {
        // A line cut by a crash mid-append: the record was never acknowledged to anyone.
        continue;
      }
      if (batch.length >= batchSize) {
        await write(batch);
        replayed += batch.length;
        batch = [];
      }
    }
    if (batch.length) {
      await write(batch);
      replayed += batch.length;
    }
    await unlink(this.replayPath);
    this.bytes = existsSync(this.path) ? (await stat(this.path)).size : 0;
    return replayed;
  }

  private fit(records: readonly InvocationRecord[]): { text: string; kept: number } {
    let text = '';
    let kept = 0;
    for (const rec of records) {
      const line = `${JSON.stringify(rec)}\n`;
      if (this.bytes + Buffer.byteLength(line) > this.maxBytes) break;
      this.bytes += Buffer.byteLength(line);
      text += line;
      kept++;
    }
    return { text, kept };
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
