import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const probe = fileURLToPath(new URL('./testing/sqliteWarningProbe.ts', import.meta.url));

describe('loadSqlite', () => {
  it('silences the SQLite ExperimentalWarning and nothing else', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', probe], { cwd: repoRoot, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stderr).not.toMatch(/SQLite is an experimental feature/);
    expect(run.stderr).toMatch(/ExperimentalWarning: something else is experimental/);
  });
});
