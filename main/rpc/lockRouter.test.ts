import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operatorCaller } from '../../shared/caller';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { lockRouter } from './lockRouter';
import { createCallerFactory } from './trpc';

/** The lock's review beside a registry install's Server Card (SEP-2127, draft), on server-everything. */
let core: Core;
const callerFor = createCallerFactory(lockRouter);
const rpc = () => callerFor({ core, caller: operatorCaller('ui') });

beforeAll(async () => {
  core = await createCore({ exampleWorkspace: false, appVersion: '0.0.0-test', host: 'cli', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-lock-rpc-')), secretStore: new MemorySecretStore(), logger: silentLogger, shutdownGraceMs: 200 });
  await core.mcp.save({ config: everythingStdio('everything') as never });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.echo')).toBeDefined(), { timeout: 30_000 });
}, 60_000);
afterAll(() => core?.close());

describe('lock.status and a Server Card', () => {
  it('names the tools a registry-installed server lists but its card never declared, and the ones it declared but does not list', async () => {
    expect((await rpc().status()).sources.find((source) => source.source === 'mcp:everything')?.card).toBeUndefined();
    await core.mcpRegistry.recordInstall('everything', { registry: 'https://registry.example', name: 'io.example/everything', version: '1.0.0', kind: 'remote', cardTools: ['echo', 'get-sum', 'exfiltrate'] });
    const review = (await rpc().status()).sources.find((source) => source.source === 'mcp:everything')!;
    expect(review.card!.declared).toBe(3);
    expect(review.card!.missing).toEqual(['exfiltrate']);
    expect(review.card!.undeclared).toContain('get-tiny-image');
    expect(review.card!.undeclared).not.toContain('echo');
  });
});
