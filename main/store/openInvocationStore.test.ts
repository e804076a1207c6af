import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { invocation } from './testing/testRecords';
import { DATABASE_FILE_NAME } from './InvocationStore';
import { loadSqlite } from './loadSqlite';
import { openInvocationStore, type StoreOpenReport } from './openInvocationStore';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const openProbe = fileURLToPath(new URL('./testing/openProbe.ts', import.meta.url));
const fixedNow = () => new Date('2026-11-22T10:20:30.456Z');
const movedName = `${DATABASE_FILE_NAME}.corrupt-2026-11-22T10-20-30-456Z`;

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tooldeck-open-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Opens, checks that the new store records and reads back, and closes. */
async function openAndUse(path: string): Promise<StoreOpenReport> {
  const { store, report } = openInvocationStore(path, { retention: false }, fixedNow);
  store.record(invocation({ id: 'after-open' }));
  expect(store.get('after-open')?.id).toBe('after-open');
  await store.close();
  return report;
}

describe('openInvocationStore', () => {
  it('creates the file on first open and reopens it with its history', async () => {
    const path = join(freshDir(), 'nested', DATABASE_FILE_NAME);
    expect(await openAndUse(path)).toMatchObject({ recovered: false, persistent: true, message: expect.stringMatching(/^Created/) });
    const { store, report } = openInvocationStore(path, { retention: false });
    expect(report).toMatchObject({ recovered: false, persistent: true, message: expect.stringMatching(/^Opened/) });
    expect(store.get('after-open')).toBeDefined();
    await store.close();
  });

  it('moves a file of garbage bytes aside and starts a new history', async () => {
    const dir = freshDir();
    const path = join(dir, DATABASE_FILE_NAME);
    const garbage = Buffer.alloc(16_384, 0x5a);
    writeFileSync(path, garbage);

    const report = await openAndUse(path);
    expect(report).toEqual({
      recovered: true,
      persistent: true,
      movedTo: join(dir, movedName),
      message: expect.stringContaining('is damaged'),
    });
    expect(report.message).toContain(join(dir, movedName));
    expect(readFileSync(join(dir, movedName))).toEqual(garbage);
  });

  it('moves a directory standing where the file should be', async () => {
    const dir = freshDir();
    const path = join(dir, DATABASE_FILE_NAME);
    mkdirSync(path);
    writeFileSync(join(path, 'note.txt'), 'not a database');

    const report = await openAndUse(path);
    expect(report).toMatchObject({ recovered: true, persistent: true, movedTo: join(dir, movedName) });
    expect(report.message).toContain('cannot be opened');
    expect(statSync(join(dir, movedName)).isDirectory()).toBe(true);
    expect(statSync(path).isFile()).toBe(true);
  });

  it('moves a file it has no permission to read, together with its -wal, so the old WAL is not replayed', async () => {
    const dir = freshDir();
    const path = join(dir, DATABASE_FILE_NAME);
    writeFileSync(path, 'private');
    chmodSync(path, 0o000);
    writeFileSync(`${path}-wal`, 'wal of the old file');
    let report: StoreOpenReport;
    let stored: boolean;
    if (process.getuid?.() === 0) {
      // Root reads any file, so the open runs as an unprivileged user (nobody) in a child process.
      chmodSync(dir, 0o777);
      const child = spawnSync(process.execPath, ['--import', 'tsx', openProbe, path], { cwd: repoRoot, uid: 65534, gid: 65534, encoding: 'utf8', env: { ...process.env, HOME: dir } });
      expect(child.stderr).toBe('');
      ({ report, stored } = JSON.parse(child.stdout) as { report: StoreOpenReport; stored: boolean });
    } else {
      report = await openAndUse(path);
      stored = true;
    }
    expect(stored).toBe(true);
    expect(report).toMatchObject({ recovered: true, persistent: true, message: expect.stringContaining('cannot be opened') });
    expect(report.movedTo).toMatch(new RegExp(`${DATABASE_FILE_NAME}\\.corrupt-`));
    expect(existsSync(report.movedTo!)).toBe(true);
    expect(statSync(report.movedTo!).mode & 0o777).toBe(0o000);
    expect(readFileSync(`${report.movedTo}-wal`, 'utf8')).toBe('wal of the old file');
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('leaves a file from a newer Tooldeck untouched and keeps history in memory', async () => {
    const dir = freshDir();
    const path = join(dir, DATABASE_FILE_NAME);
    const { DatabaseSync } = loadSqlite();
    const db = new DatabaseSync(path);
    db.exec('CREATE TABLE future (x); PRAGMA user_version = 99');
    db.close();

    const report = await openAndUse(path);
    expect(report).toMatchObject({ recovered: false, persistent: false, message: expect.stringContaining('newer Tooldeck') });
    expect(readdirSync(dir)).toEqual([DATABASE_FILE_NAME]);
    const again = new DatabaseSync(path);
    expect(again.prepare('PRAGMA user_version').get()).toEqual({ user_version: 99 });
    again.close();
  });
});
