import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../core';
import { FileSecretStore } from '../platform/FileSecretStore';
import { silentLogger } from '../platform/Logger';
import { operatorCaller } from '../../shared/caller';

const redosServer = join(import.meta.dirname, '../../e2e/peers/mcp/redosPatternServerForTests.mjs');
const cores: Core[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.close()));
});

describe('a tool whose input schema carries a catastrophic-backtracking pattern', () => {
  it('checks a 40-character argument against `^(a|a)+$` at once (RE2) and refuses it, and lets a matching one through', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-redos-'));
    const core = await createCore({ exampleWorkspace: false, appVersion: '0.0.0-test', host: 'cli', autoConnect: true, dataDir, secretStore: new FileSecretStore(join(dataDir, 'secrets')), logger: silentLogger, shutdownGraceMs: 200 });
    cores.push(core);
    await core.mcp.save({ config: { name: 'redos', transport: 'stdio', command: process.execPath, args: [redosServer] } as never });
    await new Promise<void>((resolve) => {
      const check = () => core.catalog.get('mcp:redos.match_word') && (stop(), resolve());
      const stop = core.catalog.onChange(check);
      check();
    });
    // 2^40 steps for RegExp; the pipeline validates before the call is sent.
    const refused = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:redos.match_word', arguments: { word: `${'a'.repeat(40)}!` } });
    expect(refused.error).toMatchObject({ code: 'InvalidArguments', step: 'validate', message: 'Invalid arguments for mcp:redos.match_word: /word must match pattern "^(a|a)+$".' });
    const accepted = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:redos.match_word', arguments: { word: 'a'.repeat(40) } });
    expect(accepted.result?.content).toEqual([{ type: 'text', text: `got {"word":"${'a'.repeat(40)}"}` }]);
  });
});
