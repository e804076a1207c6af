import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServerConfig } from '../../shared/mcp';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { createCaller } from './router';
import { operatorCaller } from '../../shared/caller';

const everythingScript = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

let core: Core;

beforeAll(async () => {
  core = await createCore({ exampleWorkspace: false, appVersion: '0', host: 'cli', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-mcp-rpc-')), secretStore: new MemorySecretStore(), logger: silentLogger });
});
afterAll(async () => {
  await core.close();
});

describe('resources and prompts of a server that is not connected', { timeout: 60_000 }, () => {
  it('answer ConnectionFailed (a contract error the UI can show), not an internal error; NotFound for a name never saved', async () => {
    const rpc = createCaller({ core, caller: operatorCaller('ui') });
    await rpc.mcp.save({ config: McpServerConfig.parse({ name: 'everything', enabled: false, transport: 'stdio', command: process.execPath, args: [everythingScript, 'stdio'] }) });

    const notConnected = { code: 'BAD_GATEWAY', message: 'Server "everything" is not connected', cause: { code: 'ConnectionFailed', retryable: true } };
    await expect(rpc.mcp.readResource({ server: 'everything', uri: 'demo://resource/static/document/architecture.md' })).rejects.toMatchObject(notConnected);
    await expect(rpc.mcp.getPrompt({ server: 'everything', name: 'simple-prompt' })).rejects.toMatchObject(notConnected);
    await expect(rpc.mcp.readResource({ server: 'nobody', uri: 'demo://x' })).rejects.toMatchObject({ code: 'NOT_FOUND', cause: { code: 'NotFound' } });

    // Connected, the same calls reach the real server; disconnected again, they are refused the same way.
    await rpc.mcp.connect({ name: 'everything' });
    const prompt = await rpc.mcp.getPrompt({ server: 'everything', name: 'simple-prompt' });
    expect(prompt.messages.length).toBeGreaterThan(0);
    await rpc.mcp.disconnect({ name: 'everything' });
    await expect(rpc.mcp.getPrompt({ server: 'everything', name: 'simple-prompt' })).rejects.toMatchObject({ code: 'BAD_GATEWAY', cause: { code: 'ConnectionFailed' } });
  });
});
