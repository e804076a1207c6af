import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './program';
import { runTooldeck } from './testing/runTooldeck';

const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-cli-launch-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs the CLI as if on a terminal where the user types `answer`. */
async function onTerminal(argv: string[], answer: string) {
  let stdout = '';
  let stderr = '';
  const input = Object.assign(new PassThrough(), { isTTY: true });
  input.end(`${answer}\n`);
  const code = await runCli(['--data-dir', dataDir, ...argv], { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), input }, {});
  return { code, stdout, stderr };
}

// A folder that gained an McpServer after the user last looked (a pull): the real server-everything
// under another name and environment, so its command line is one the user never confirmed.
const gainedYaml = `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: gained}\nspec:\n  transport: stdio\n  command: \${node}\n  args: ['\${module:@modelcontextprotocol/server-everything/dist/index.js}', stdio]\n  env: [{name: FROM, value: pull}]\n`;
const gainedLine = `FROM=pull '\${node}' '\${module:@modelcontextprotocol/server-everything/dist/index.js}' stdio`;

describe('the CLI and workspace command lines not confirmed for their folder', { timeout: 60_000 }, () => {
  it('runs the example workspace it seeded without asking (confirmed on first start)', async () => {
    const once = await runTooldeck(dataDir, ['reconcile', '--once']);
    expect(once.stdout).toMatch(/McpServer\/everything \(everything\.yaml\): Ready/);
    expect(once.code).toBe(0);
  });

  it('without a terminal refuses with exit 2 and the exact line, starting nothing; asks on a terminal (no keeps refusing, yes starts it and is remembered)', async () => {
    writeFileSync(join(dataDir, 'workspace', 'gained.yaml'), gainedYaml);
    const tools = await runTooldeck(dataDir, ['mcp', 'tools', 'gained']);
    expect(tools.code).toBe(2);
    expect(tools.stderr).toContain(`Not started: Starting a command needs the exact command line confirmed first: ${gainedLine}\n`);
    expect(tools.stderr).toContain('tooldeck reconcile --once --yes');
    const once = await runTooldeck(dataDir, ['reconcile', '--once']);
    expect(once.code).toBe(2);
    expect(once.stdout).toContain(`McpServer/gained (gained.yaml): Error — launch not confirmed: ${gainedLine}\n`);
    expect(once.stderr).toContain(gainedLine);

    const declined = await onTerminal(['reconcile', '--once'], 'n');
    expect(declined.stderr).toContain(`McpServer gained of ${join(dataDir, 'workspace')} starts a command not confirmed for that folder:\n  ${gainedLine}\nRun it, now and whenever this folder starts it (y/N)? `);
    expect(declined.code).toBe(2);
    const accepted = await onTerminal(['reconcile', '--once'], 'y');
    expect(accepted.stdout).toMatch(/McpServer\/gained \(gained\.yaml\): Ready/);
    expect(accepted.code).toBe(0);
    // Remembered for the folder: the next command neither asks nor refuses.
    const again = await runTooldeck(dataDir, ['mcp', 'tools', 'gained']);
    expect(again.stdout).toContain('echo');
    expect(again.code).toBe(0);
  });

  it('--yes confirms the lines for that folder; a line that would leave a marker never ran before', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tooldeck-cli-cloned-'));
    const marker = join(folder, 'ran');
    // Hand-written hostile folder content: its command leaves a marker if it ever runs.
    mkdirSync(join(folder, 'servers'));
    writeFileSync(join(folder, 'servers', 'dropper.yaml'), `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: dropper}\nspec:\n  transport: stdio\n  command: \${node}\n  args: [-e, ${JSON.stringify(`require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`)}]\n  reconnect: {max_attempts: 1, backoff: 1s}\n`);
    const refused = await runTooldeck(dataDir, ['reconcile', '--once', '--workspace', folder]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`'\${node}' -e 'require('\\''fs'\\'').writeFileSync(`);
    expect(existsSync(marker)).toBe(false);
    const confirmed = await runTooldeck(dataDir, ['reconcile', '--once', '--workspace', folder, '--yes']);
    // Confirmed, it runs (and, being no MCP server, never becomes Ready).
    expect(confirmed.code).toBe(1);
    expect(existsSync(marker)).toBe(true);
    rmSync(folder, { recursive: true, force: true });
  });
});
