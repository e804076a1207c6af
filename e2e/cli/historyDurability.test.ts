import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliPath, startTooldeckServer } from '../support/tooldeckServer';

/**
 * Invocation history survives how a console ends: a SIGTERM right after a burst of calls writes
 * every queued row before the process exits, and a history file that cannot be used is moved aside
 * (never deleted) with a warning that says where it went.
 */
const tooldeck = (dataDir: string, ...args: string[]) => execFileSync(process.execPath, [cliPath, '--data-dir', dataDir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('invocation history durability', { timeout: 90_000 }, () => {
  it('SIGTERM to tooldeck serve right after a burst of calls loses none of them', async () => {
    const server = await startTooldeckServer();
    const invoke = async (message: string) => {
      const response = await fetch(`${server.origin}/trpc/tools.invoke`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'mcp:everything.echo', arguments: { message } }),
      });
      return ((await response.json()) as { result?: { data: { record: { status: string } } } }).result?.data.record.status;
    };
    // The example workspace's server-everything connects on start; wait until echo answers.
    for (let attempt = 0; (await invoke('ready?')) !== 'ok'; attempt++) {
      if (attempt > 200) throw new Error('echo never became callable');
      await new Promise((r) => setTimeout(r, 100));
    }
    const burst = Array.from({ length: 60 }, (_, i) => `burst-${i}`);
    expect(await Promise.all(burst.map(invoke))).toEqual(burst.map(() => 'ok'));
    // Rows are written in batches (every 200 ms): these are still queued when the signal arrives.
    const exited = new Promise<number | null>((done) => server.process.once('exit', (code) => done(code)));
    server.process.kill('SIGTERM');
    expect(await exited).toBe(143);

    const rows = JSON.parse(tooldeck(server.dataDir, 'history', '--json', '--limit', '1000')) as Array<{ argumentsJson: string }>;
    const written = rows.map((row) => (JSON.parse(row.argumentsJson) as { message: string }).message).filter((message) => message.startsWith('burst-'));
    expect(written.sort()).toEqual([...burst].sort());
  });

  it('a history file that is not a database is moved aside with a warning naming both paths, and history starts anew', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-history-corrupt-'));
    mkdirSync(dataDir, { recursive: true });
    const garbage = 'this is not an SQLite database\n'.repeat(200);
    writeFileSync(join(dataDir, 'tooldeck.db'), garbage);

    const result = spawnSync(process.execPath, [cliPath, '--data-dir', dataDir, 'history'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const moved = readdirSync(dataDir).filter((name) => /^tooldeck\.db\.corrupt-/.test(name));
    expect(moved).toHaveLength(1);
    expect(result.stderr).toBe(
      `warning: The invocation history at ${join(dataDir, 'tooldeck.db')} could not be used (the database file is damaged (file is not a database)). It was moved to ${join(dataDir, moved[0]!)} and a new, empty history was started.\n`,
    );
    expect(result.stdout).toBe('No recorded calls match.\n');
    expect(readFileSync(join(dataDir, moved[0]!), 'utf8')).toBe(garbage);
    expect(existsSync(join(dataDir, 'tooldeck.db'))).toBe(true);
  });
});
