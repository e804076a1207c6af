import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { Command } from 'commander';
import { COMMAND_MODULE_OF, commandModulesFor, runCli } from './program';
import type { CliContext } from './CliContext';

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) }, env);
  return { code, stdout, stderr };
}

describe('tooldeck CLI', () => {
  it('loads each command from the module that registers it, and every module for help', async () => {
    // The table of top-level commands must name, for each, the module whose register function adds it:
    // a command missing from the table would be unreachable except through help.
    const registered = new Map<string, string>();
    for (const [name, load] of Object.entries(COMMAND_MODULE_OF)) {
      const program = new Command('tooldeck');
      (await load())(program, {} as CliContext);
      for (const command of program.commands) registered.set(command.name(), name);
      expect(program.commands.map((command) => command.name())).toContain(name);
    }
    expect([...registered.keys()].sort()).toEqual(Object.keys(COMMAND_MODULE_OF).sort());
    expect(commandModulesFor(['--data-dir', '/tmp/x', 'mcp', 'call', 'echo'])).toEqual([COMMAND_MODULE_OF.mcp]);
    expect(commandModulesFor(['metrics', '--json'])).toEqual([COMMAND_MODULE_OF.history]);
    expect(commandModulesFor(['--version'])).toEqual([]);
    expect(commandModulesFor(['--help']).length).toBe(new Set(Object.values(COMMAND_MODULE_OF)).size);
    expect(commandModulesFor(['no-such-command']).length).toBe(new Set(Object.values(COMMAND_MODULE_OF)).size);
  });

  it('prints its version', async () => {
    const result = await run(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it('info --json reports the cli host and honours --data-dir', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-cli-'));
    const result = await run(['--data-dir', dir, 'info', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ host: 'cli', dataDir: dir, appVersion: pkg.version });
  });

  it('takes the data dir from TOOLDECK_DATA_DIR when no flag is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-cli-env-'));
    const result = await run(['info', '--json'], { TOOLDECK_DATA_DIR: dir });
    expect(JSON.parse(result.stdout).dataDir).toBe(dir);
  });

  it('exits 2 on usage errors', async () => {
    expect((await run(['no-such-command'])).code).toBe(2);
    expect((await run(['info', '--bogus'])).code).toBe(2);
    expect((await run(['serve', '--port', 'abc'])).code).toBe(2);
  });

  it('refuses to serve on a non-loopback host without --dangerously-bind-all (exit 2)', async () => {
    const result = await run(['serve', '--host', '0.0.0.0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--dangerously-bind-all/);
  });
});
