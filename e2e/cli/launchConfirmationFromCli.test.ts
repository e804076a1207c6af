import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCore, type Core } from '../../main/core';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { cliPath } from '../support/tooldeckServer';

/**
 * A running console and the built CLI on one data dir: a stdio McpServer the console holds back
 * (its line not confirmed for the folder) starts there as soon as `tooldeck apply --target local
 * --yes` confirms the line in another process — the console watches the launch allow-list file —
 * instead of at its next resync (60 s). server-everything over stdio.
 */
const run = promisify(execFile);

const server = `apiVersion: orloj.dev/v1
kind: McpServer
metadata:
  name: pulled
spec:
  transport: stdio
  command: \${node}
  args: ["\${module:@modelcontextprotocol/server-everything/dist/index.js}", stdio]
  tool_filter:
    include: [echo]
`;

let core: Core;
let dataDir: string;
let workspaceDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-allowlist-watch-'));
  workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-allowlist-watch-ws-'));
  core = await createCore({ appVersion: '0', host: 'web', autoConnect: true, exampleWorkspace: false, workspaceDir, dataDir, secretStore: new MemorySecretStore(), logger: silentLogger });
});

afterAll(async () => {
  await core?.close();
});

const statusOf = (name: string) => core.resources.reconciler.statuses().mcpServers.find((item) => item.name === name)?.status;

describe('a launch confirmed from the CLI reaches a running console', { timeout: 120_000 }, () => {
  it('the console starts the server and lists its tools once the CLI confirms its line, without waiting for its resync', async () => {
    // Written behind the console's back (a git pull): held until its exact line is confirmed.
    const file = join(workspaceDir, 'pulled.yaml');
    writeFileSync(file, server);
    await vi.waitFor(() => expect(statusOf('pulled')?.unconfirmedLaunch).toBeDefined(), { timeout: 30_000 });
    expect(core.catalog.get('mcp:pulled.echo')).toBeUndefined();

    const applied = await run(process.execPath, [cliPath, '--data-dir', dataDir, 'apply', '--target', 'local', '--yes', '--workspace', workspaceDir, '-f', file], { encoding: 'utf8' });
    expect(applied.stdout).toContain('McpServer/pulled');

    // Well inside the console's 60 s resync: only the watch can have brought it.
    await vi.waitFor(() => expect(statusOf('pulled')).toMatchObject({ phase: 'Ready' }), { timeout: 20_000 });
    await vi.waitFor(() => expect(core.catalog.get('mcp:pulled.echo')).toBeDefined(), { timeout: 5_000 });
    expect(statusOf('pulled')?.unconfirmedLaunch).toBeUndefined();
  });
});
