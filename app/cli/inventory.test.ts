import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeers, type PeerSet } from '../../e2e/peers/a2a/startPeers';
import { runCli } from './program';
import { runTooldeck } from './testing/runTooldeck';

/**
 * The CLI and the console agree on one inventory of servers and one recorder: on a fresh data dir
 * the example workspace's server is listed, callable, compiled for agents, and reconciled with an
 * outcome; an A2A turn from the CLI lands in history and metrics.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-inventory-'));
let peers: PeerSet;

async function run(argv: string[]) {
  return runTooldeck(dataDir, argv);
}

beforeAll(async () => {
  peers = await startPeers({ sample: { kind: 'sample', options: { stepDelayMs: 5 } } });
});

afterAll(async () => {
  await peers?.stop();
});

describe('one server inventory', { timeout: 60_000 }, () => {
  it('lists the example workspace server on a fresh data dir, with its origin', async () => {
    const listed = await run(['mcp', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^everything +workspace everything\.yaml +stdio +\S*node\S* \S+server-everything\S+ stdio$/m);
    const json = JSON.parse((await run(['mcp', 'list', '--json'])).stdout);
    expect(json).toEqual([expect.objectContaining({ name: 'everything', origin: { kind: 'workspace', file: 'everything.yaml' }, transport: 'stdio' })]);
  });

  it('calls a workspace server by name from the CLI, reconciling it once as the console would', async () => {
    const called = await run(['mcp', 'call', 'echo', 'everything', '--args', '{"message":"from the cli"}']);
    expect(called).toMatchObject({ code: 0, stdout: 'Echo: from the cli\n' });
  });

  it("compiles an agent's tools.json following the example pod file's own comment", async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'tooldeck-inventory-compile-'));
    let stdout = '';
    const code = await runCli(['--data-dir', fresh, 'compile', '--agent', 'assistant'], { stdout: (t) => void (stdout += t), stderr: () => undefined }, {});
    expect(code).toBe(0);
    expect(JSON.parse(stdout).tools.map((tool: { name: string }) => tool.name).sort()).toEqual(['everything.echo', 'everything.get-sum', 'everything.get-tiny-image']);
  });

  it('apply --target local reconciles what it applied and reports the outcome; a server that cannot start exits 1', async () => {
    const good = join(dataDir, 'good.yaml');
    writeFileSync(good, 'apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: second}\nspec:\n  transport: stdio\n  command: ${node}\n  args: ["${module:@modelcontextprotocol/server-everything/dist/index.js}", stdio]\n');
    const applied = await run(['apply', '-f', good, '--yes']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/McpServer\/second created/);
    expect(applied.stdout).toMatch(/McpServer\/second \(good\.yaml\): Ready — \d+ tools discovered, \d+ Tools generated/);

    const bad = join(dataDir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: broken}\nspec:\n  transport: stdio\n  command: tooldeck-no-such-command\n  reconnect: {max_attempts: 1, backoff: 1s}\n');
    const failed = await run(['apply', '-f', bad, '--yes']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/McpServer\/broken \(bad\.yaml\): Error — .*tooldeck-no-such-command.*not found/);
    expect(failed.stderr).toBe('broken did not become Ready.\n');

    const once = await run(['reconcile', '--once']);
    expect(once.code).toBe(1);
    expect(once.stdout).toMatch(/McpServer\/everything \(everything\.yaml\): Ready/);
    expect(once.stdout).toMatch(/McpServer\/second \(good\.yaml\): Ready/);
    expect(once.stdout).toMatch(/McpServer\/broken \(bad\.yaml\): Error/);
    expect((await run(['reconcile'])).code).toBe(2);
  });
});

describe('one recorder', { timeout: 60_000 }, () => {
  it('an A2A turn sent from the CLI is in history and metrics', async () => {
    const sent = await run(['a2a', 'send', peers.urls.sample!, 'hello from the cli']);
    expect(sent.code).toBe(0);
    const history = JSON.parse((await run(['history', '--json'])).stdout) as Array<{ sourceKind: string; tool: string; argumentsJson: string }>;
    expect(history.find((record) => record.sourceKind === 'a2a')).toMatchObject({ tool: 'SendMessage', argumentsJson: expect.stringContaining('hello from the cli') });
    const metrics = JSON.parse((await run(['metrics', '--by', 'server', '--json'])).stdout) as Array<{ group: { key: string }; count: number }>;
    expect(metrics.some((row) => row.group.key.startsWith('a2a:') && row.count >= 1)).toBe(true);
  });
});
