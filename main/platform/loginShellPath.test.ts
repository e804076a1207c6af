import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { mergePathLists, resolveLoginShellPath } from './loginShellPath';

/** A home folder whose bash login profile is `profile`. */
function homeWithProfile(profile: string): string {
  const home = mkdtempSync(join(tmpdir(), 'tooldeck-shell-'));
  writeFileSync(join(home, '.bash_profile'), profile);
  return home;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the login shell PATH', () => {
  it("reads PATH from the user's login profile, past whatever the profile prints, and keeps inherited entries after it", async () => {
    const home = homeWithProfile('echo "Welcome to this machine"\nprintf "no newline banner"\nexport PATH="/opt/tooldeck-test/bin:$PATH"\n');
    const result = await resolveLoginShellPath({ shell: '/bin/bash', env: { HOME: home, PATH: '/usr/bin:/bin:/inherited/only' }, platform: 'linux' });
    expect(result.source).toBe('login-shell');
    const entries = result.path.split(':');
    expect(entries[0]).toBe('/opt/tooldeck-test/bin');
    expect(entries).toContain('/inherited/only');
    expect(entries.indexOf('/inherited/only')).toBeGreaterThan(0);
    expect(result.added).toContain('/opt/tooldeck-test/bin');
    expect(new Set(entries).size).toBe(entries.length);
  });

  it('keeps the inherited PATH when the profile hangs, and ends the shell and what it started', async () => {
    const home = homeWithProfile('echo $$ > "$HOME/shell.pid"\nsleep 60 &\necho $! > "$HOME/sleep.pid"\nwait\n');
    const result = await resolveLoginShellPath({ shell: '/bin/bash', env: { HOME: home, PATH: '/usr/bin:/bin' }, platform: 'linux', timeoutMs: 1_000 });
    expect(result).toMatchObject({ source: 'inherited', path: '/usr/bin:/bin', added: [] });
    expect(result.reason).toMatch(/did not answer within 1000 ms/);
    const pids = ['shell.pid', 'sleep.pid'].map((file) => Number(readFileSync(join(home, file), 'utf8')));
    await vi.waitFor(() => expect(pids.filter(alive)).toEqual([]), { timeout: 10_000 });
  });

  it('keeps the inherited PATH when the shell cannot be started or prints nothing', async () => {
    const missing = await resolveLoginShellPath({ shell: '/nonexistent/shell', env: { PATH: '/usr/bin' }, platform: 'darwin' });
    expect(missing).toMatchObject({ source: 'inherited', path: '/usr/bin' });
    expect(missing.reason).toMatch(/could not be started/);
    const silent = await resolveLoginShellPath({ shell: '/bin/true', env: { PATH: '/usr/bin' }, platform: 'linux' });
    expect(silent).toMatchObject({ source: 'inherited', path: '/usr/bin', reason: '/bin/true printed no PATH' });
  });

  it('leaves Windows alone: GUI apps there inherit the user PATH', async () => {
    expect(await resolveLoginShellPath({ env: { PATH: 'C:\\Windows' }, platform: 'win32' })).toMatchObject({ source: 'inherited', path: 'C:\\Windows' });
  });

  it('merges two PATH lists: first wins, no duplicates, no empty entries, nothing lost', () => {
    const entry = fc.stringMatching(/^[a-z/]{0,6}$/);
    fc.assert(
      fc.property(fc.array(entry), fc.array(entry), (first, second) => {
        const merged = mergePathLists(first.join(':'), second.join(':'), ':');
        const entries = merged ? merged.split(':') : [];
        expect(new Set(entries).size).toBe(entries.length);
        expect(entries).not.toContain('');
        expect(new Set(entries)).toEqual(new Set([...first, ...second].filter(Boolean)));
        const fromFirst = [...new Set(first.filter(Boolean))];
        expect(entries.slice(0, fromFirst.length)).toEqual(fromFirst);
      }),
    );
  });
});
