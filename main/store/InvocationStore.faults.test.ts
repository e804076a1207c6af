import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { invocation } from './testing/testRecords';
import { InvocationStore, type StoreWriteError } from './InvocationStore';
import { loadSqlite } from './loadSqlite';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const burstWriter = fileURLToPath(new URL('./testing/burstWriter.ts', import.meta.url));
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tooldeck-store-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function integrityCheck(path: string): string {
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path);
  try {
    return (db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
}

/** Runs the burst writer until it has reported `flushes` commits, then SIGKILLs it; resolves with every count it printed. */
function killMidBurst(path: string, batch: number, flushes: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', burstWriter, path, String(batch)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.split('\n').length > flushes && !child.killed) child.kill('SIGKILL');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`burst writer exited on its own (code ${code}): ${err}`));
      else resolve(out.split('\n').filter(Boolean).map(Number));
    });
  });
}

describe('InvocationStore under faults', () => {
  it('survives a SIGKILL mid-burst: the file is intact and only the unflushed batch is missing', async () => {
    const path = join(tempDir(), 'tooldeck.db');
    const batch = 200;
    const reported = await killMidBurst(path, batch, 8);
    const committed = Math.max(...reported);
    expect(committed).toBeGreaterThanOrEqual(8 * batch);

    expect(integrityCheck(path)).toBe('ok');
    const store = new InvocationStore(path, { retention: false });
    try {
      const count = store.count();
      // Everything reported as flushed is there; at most the batch being written when it died is not.
      expect(count).toBeGreaterThanOrEqual(committed);
      expect(count).toBeLessThanOrEqual(committed + batch);
      // Batches commit whole and in order, so what survived is an unbroken prefix.
      expect(store.get('burst-0')).toBeDefined();
      expect(store.get(`burst-${count - 1}`)).toBeDefined();
      expect(store.get(`burst-${count}`)).toBeUndefined();
      // The latency rollup committed in the same transactions, so metrics agree with the rows.
      const [row] = store.breakdown({ since: 0, until: Date.now() + 60_000, by: 'source' });
      expect(row?.count).toBe(count);
    } finally {
      await store.close();
    }
  });

  it('keeps callers unaffected when the disk is full, bounds the queue, and catches up once space frees', async () => {
    const path = join(tempDir(), 'tooldeck.db');
    const store = new InvocationStore(path, { maxDatabaseBytes: 1024 * 1024, maxBatchRows: 50, maxQueuedRows: 200, flushIntervalMs: 60_000, retention: false });
    const errors: StoreWriteError[] = [];
    store.onWriteError((error) => errors.push(error));
    const preview = 'r'.repeat(1_500);
    let n = 0;
    const recordMore = (count: number) => {
      for (let i = 0; i < count; i++) store.record(invocation({ id: `full-${n++}`, resultPreview: preview }));
    };

    while (store.health().ok && n < 10_000) {
      recordMore(50);
      await store.flush();
    }
    const health = store.health();
    expect(health.ok).toBe(false);
    expect(health.lastError?.message).toMatch(/full/);
    expect(health.pendingRows).toBe(50);
    expect(errors.at(-1)).toMatchObject({ sqliteCode: 13, retrying: true, rows: 50 });

    // Calls keep going: recording neither throws nor grows memory past the cap.
    expect(() => recordMore(400)).not.toThrow();
    await expect(store.flush()).resolves.toBeUndefined();
    expect(store.health()).toMatchObject({ ok: false, pendingRows: 200, droppedRows: 250 });
    const onDisk = store.list({ limit: 1 }).items;
    expect(onDisk).toHaveLength(1);

    // Pruning history frees pages; the queued records then land.
    const committedBefore = store.count({ since: 0 });
    store.applyRetention({ maxRows: 20 });
    await store.flush();
    expect(store.health()).toMatchObject({ ok: true, pendingRows: 0, droppedRows: 250 });
    expect(store.count()).toBe(20 + 200);
    expect(committedBefore).toBeGreaterThan(20);
    expect(store.get(`full-${n - 1}`)).toBeDefined();
    await store.close();
    expect(integrityCheck(path)).toBe('ok');
  });
});
