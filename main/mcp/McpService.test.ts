import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { everythingScript, everythingStdio, startEverythingHttp, type RunningPeer } from '../../e2e/peers/mcp/everything';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { McpService } from './McpService';
import { pipelineFor } from './testing/pipelineFor';

const clientInfo = { name: 'tooldeck-test', version: '0.0.0' };

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function newService(secretStore = new MemorySecretStore()) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-mcp-'));
  return { dataDir, secretStore, service: new McpService({ dataDir, secretStore, logger: silentLogger, clientInfo, connectTimeoutMs: 15_000 }) };
}

describe('server-everything over stdio', () => {
  const { service, dataDir } = newService();
  const tools = pipelineFor(service);

  beforeAll(async () => {
    await service.init();
    await service.save({ config: everythingStdio() as never });
  });
  afterAll(() => service.close());

  it('connects, negotiates the legacy era and lists every tool', () => {
    const snapshot = service.get('everything');
    expect(snapshot.state.status).toBe('ready');
    expect(snapshot.era).toBe('legacy');
    expect(snapshot.protocolVersion).toBe('2025-11-25');
    expect(snapshot.serverInfo?.name).toBe('mcp-servers/everything');
    const names = snapshot.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'get-structured-content', 'trigger-long-running-operation']));
    // Capability-gated tools appear because the client advertises elicitation, sampling and roots.
    expect(names).toEqual(expect.arrayContaining(['trigger-elicitation-request', 'trigger-sampling-request', 'get-roots-list']));
    expect(snapshot.resources.length + snapshot.resourceTemplates.length).toBeGreaterThan(0);
    expect(snapshot.prompts.length).toBeGreaterThan(0);
  });

  it('persists the saved server under the data dir', () => {
    const saved = JSON.parse(readFileSync(join(dataDir, 'servers.json'), 'utf8'));
    expect(saved.servers[0]).toMatchObject({ name: 'everything', transport: 'stdio' });
  });

  it('echoes and sums', async () => {
    expect(await tools.call('everything', 'echo', { message: 'hello' })).toMatchObject({ content: [{ type: 'text', text: 'Echo: hello' }] });
    const sum = await tools.call('everything', 'get-sum', { a: 2, b: 3 });
    expect(JSON.stringify(sum.content)).toContain('5');
  });

  it('returns an image and structured content', async () => {
    const image = await tools.call('everything', 'get-tiny-image', {});
    expect(image.content.some((c) => c.type === 'image' && c.mimeType === 'image/png' && c.data.length > 100)).toBe(true);
    const structured = await tools.call('everything', 'get-structured-content', { location: 'New York' });
    expect(structured.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });

  it('reports progress of a long operation and cancels it on abort', async () => {
    const progress: number[] = [];
    const controller = new AbortController();
    const call = tools.call(
      'everything',
      'trigger-long-running-operation',
      { duration: 30, steps: 30 },
      {
        signal: controller.signal,
        onProgress: (p) => {
          progress.push(p.progress);
          if (progress.length === 2) controller.abort();
        },
      },
    );
    await expect(call).rejects.toThrow();
    expect(progress).toEqual([1, 2]);
    const cancelled = service.transcript('everything')!.list().some((e) => e.method === 'notifications/cancelled' && e.direction === 'out');
    expect(cancelled).toBe(true);
    // The connection survives a cancel.
    expect(await tools.call('everything', 'echo', { message: 'still here' })).toMatchObject({ content: [{ text: 'Echo: still here' }] });
  });

  it('routes an elicitation to the operator and returns the answer to the server', async () => {
    const call = tools.call('everything', 'trigger-elicitation-request', {});
    const pending = await waitFor(() => service.broker.pending()[0]);
    expect(pending).toMatchObject({ kind: 'elicitation', server: 'everything', mode: 'form' });
    const schema = (pending as unknown as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema;
    expect(Object.keys(schema.properties).length).toBeGreaterThan(0);
    service.broker.answer(pending.id, { kind: 'elicitation', action: 'accept', content: { name: 'Ada', color: 'red' } });
    const result = await call;
    expect(JSON.stringify(result.content)).toContain('Ada');
  });

  it('routes a sampling request to the operator, whose reply the server receives', async () => {
    const call = tools.call('everything', 'trigger-sampling-request', { prompt: 'Say hi', maxTokens: 20 });
    const pending = await waitFor(() => service.broker.pending()[0]);
    expect(pending.kind).toBe('sampling');
    service.broker.answer(pending.id, { kind: 'sampling', action: 'reply', text: 'Hi from the operator', model: 'operator' });
    expect(JSON.stringify((await call).content)).toContain('Hi from the operator');
  });

  it('answers roots/list from the editable roots', async () => {
    await service.setRoots([{ uri: 'file:///work/project', name: 'project' }]);
    // The server re-reads roots after our list_changed notification, asynchronously.
    const text = await waitFor(async () => {
      const result = JSON.stringify((await tools.call('everything', 'get-roots-list', {})).content);
      return result.includes('file:///work/project') ? result : undefined;
    });
    expect(text).toContain('project');
  });

  it('keeps a transcript with latencies and the server stderr', () => {
    const entries = service.transcript('everything')!.list();
    const response = entries.find((e) => e.kind === 'response' && e.method === 'tools/call');
    expect(response?.latencyMs).toBeGreaterThanOrEqual(0);
    expect(entries.some((e) => e.kind === 'stderr')).toBe(true);
    expect(entries.some((e) => e.kind === 'request' && e.method === 'initialize')).toBe(true);
  });

  it('leaves no child process behind when the server is removed', async () => {
    const pid = service.get('everything').pid!;
    expect(isAlive(pid)).toBe(true);
    await service.remove('everything');
    expect(isAlive(pid)).toBe(false);
    expect(service.list()).toEqual([]);
  });
});

describe('server-everything over HTTP', () => {
  const peers: RunningPeer[] = [];
  const { service, secretStore, dataDir } = newService();
  const tools = pipelineFor(service);
  afterAll(async () => {
    await service.close();
    await Promise.all(peers.map((p) => p.close()));
  });

  it('talks Streamable HTTP and keeps the bearer token out of the config file and transcript', async () => {
    const peer = await startEverythingHttp('streamableHttp');
    peers.push(peer);
    await service.save({ config: { name: 'remote', transport: 'http', url: peer.url, headers: { 'X-Team': 'ops' } } as never, bearerToken: 'tok-very-secret-123' });
    expect(service.get('remote').state.status).toBe('ready');
    expect(await tools.call('remote', 'echo', { message: 'over http' })).toMatchObject({ content: [{ text: 'Echo: over http' }] });
    expect(readFileSync(join(dataDir, 'servers.json'), 'utf8')).not.toContain('tok-very-secret-123');
    expect(await secretStore.get('mcp:remote:bearer')).toBe('tok-very-secret-123');
    expect(service.transcript('remote')!.export()).not.toContain('tok-very-secret-123');
  });

  it('talks legacy HTTP+SSE', async () => {
    const peer = await startEverythingHttp('sse');
    peers.push(peer);
    await service.save({ config: { name: 'legacy-sse', transport: 'sse', url: peer.url } as never });
    expect(service.get('legacy-sse').state.status).toBe('ready');
    expect(await tools.call('legacy-sse', 'get-sum', { a: 20, b: 22 })).toMatchObject({ content: [{ text: expect.stringContaining('42') }] });
  });
});

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not met in time');
}

describe('saved server secrets', () => {
  it('keeps a stored secret when an edit sends *** and replaces it when the value changes', async () => {
    const { service, secretStore, dataDir } = newService();
    await service.init();
    try {
      const config = { name: 'remote', transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Api-Key': 'first-key-123' }, enabled: false };
      expect((await service.save({ config: config as never })).config).toMatchObject({ headers: {}, secretHeaders: ['X-Api-Key'] });
      await service.save({ config: { ...config, headers: { 'X-Api-Key': '***' } } as never, previousName: 'remote' });
      expect(await secretStore.get('mcp:remote:header:X-Api-Key')).toBe('first-key-123');
      await service.save({ config: { ...config, headers: { 'X-Api-Key': 'second-key-456' } } as never, previousName: 'remote' });
      expect(await secretStore.get('mcp:remote:header:X-Api-Key')).toBe('second-key-456');
      // Dropping the header deletes its secret; a *** with nothing stored is refused.
      await service.save({ config: { ...config, headers: {} } as never, previousName: 'remote' });
      expect(await secretStore.get('mcp:remote:header:X-Api-Key')).toBeUndefined();
      await expect(service.save({ config: { ...config, name: 'other', headers: { Authorization: '***' } } as never })).rejects.toThrow(/Header Authorization is "\*\*\*" but no value is stored/);
      expect(readFileSync(join(dataDir, 'servers.json'), 'utf8')).not.toMatch(/key-123|key-456/);
    } finally {
      await service.close();
    }
  });

  it('seals the plaintext credentials of a servers.json written by an older version on load', async () => {
    const { service, secretStore, dataDir } = newService();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      join(dataDir, 'servers.json'),
      JSON.stringify({
        version: 1,
        servers: [
          { name: 'old', transport: 'http', url: 'https://u:pass-word-1@x.example/mcp', headers: { Authorization: 'Bearer legacy-token-1', 'X-Tenant': 'tenant-plain-1' }, enabled: false },
          { name: 'old-stdio', transport: 'stdio', command: 'node', env: { GITHUB_PAT: 'pat-plain-1', LOG_LEVEL: 'debug' }, enabled: false },
        ],
      }),
    );
    await service.init();
    try {
      const text = readFileSync(join(dataDir, 'servers.json'), 'utf8');
      expect(text).not.toMatch(/legacy-token-1|pass-word-1|tenant-plain-1|pat-plain-1|debug/);
      expect(await secretStore.get('mcp:old:header:Authorization')).toBe('Bearer legacy-token-1');
      // Values no name or format marks as credentials are sealed too: every env and header value is.
      expect(await secretStore.get('mcp:old:header:X-Tenant')).toBe('tenant-plain-1');
      expect(await secretStore.get('mcp:old-stdio:env:GITHUB_PAT')).toBe('pat-plain-1');
      expect(service.configs().find((config) => config.name === 'old-stdio')).toMatchObject({ env: {}, secretEnv: ['GITHUB_PAT', 'LOG_LEVEL'] });
      expect(await secretStore.get('mcp:old:url:password')).toBe('pass-word-1');
    } finally {
      await service.close();
    }
  });

  it('from the browser, starts no stdio command before its exact launch line is confirmed', async () => {
    const { service } = newService();
    await service.init();
    try {
      const config = { ...everythingStdio('confirmed'), env: { API_TOKEN: 'tok-abcdef' } };
      const refusal = await service.save({ config: config as never }, { requireLaunchConfirmation: true }).then(() => undefined, (error: unknown) => error as { step?: string; message: string; details: string[] });
      expect(refusal).toMatchObject({ step: 'confirm-launch' });
      expect(refusal!.message).toContain('API_TOKEN=***');
      expect(service.configs()).toEqual([]);
      const line = refusal!.details[0]!;
      await expect(service.save({ config: config as never, confirmedLaunchLine: `${line} --extra` }, { requireLaunchConfirmation: true })).rejects.toMatchObject({ step: 'confirm-launch' });
      const saved = await service.save({ config: config as never, confirmedLaunchLine: line }, { requireLaunchConfirmation: true });
      expect(saved.state.status).toBe('ready');
      // An edit that leaves the launch as it was needs no new confirmation.
      await service.save({ config: { ...config, enabled: false, env: { API_TOKEN: '***' } } as never, previousName: 'confirmed' }, { requireLaunchConfirmation: true });
      // Every value is sealed, so a new value shows the same line (API_TOKEN=***): it is a new launch all the same.
      const newValue = { config: { ...config, enabled: false, env: { API_TOKEN: 'tok-changed' } } as never, previousName: 'confirmed' };
      await expect(service.save(newValue, { requireLaunchConfirmation: true })).rejects.toMatchObject({ step: 'confirm-launch', details: [line] });
      await service.save({ ...newValue, confirmedLaunchLine: line }, { requireLaunchConfirmation: true });
    } finally {
      await service.close();
    }
  });

  it('from the browser, imports a stdio server only with its exact launch line confirmed, and spawns nothing before', async () => {
    const { service } = newService();
    await service.init();
    // The imported command's first act (a --require preload, before server-everything starts) is to
    // append its pid to a marker file: "nothing was spawned" is then observed, not assumed.
    const work = mkdtempSync(join(tmpdir(), 'tooldeck-import-'));
    const marker = join(work, 'launched.txt');
    const preload = join(work, 'mark-launch.cjs');
    writeFileSync(preload, "require('node:fs').appendFileSync(process.env.LAUNCH_MARKER, process.pid + '\\n');\n");
    const importText = (env: Record<string, string>) =>
      JSON.stringify({ mcpServers: { imported: { command: process.execPath, args: ['--require', preload, everythingScript, 'stdio'], env: { LAUNCH_MARKER: marker, API_TOKEN: 'tok-import-1', ...env } } } });
    const launched = () => (existsSync(marker) ? readFileSync(marker, 'utf8').trim().split('\n') : []);
    const text = importText({});
    const browser = { requireLaunchConfirmation: true };
    try {
      // The line the import dialog shows (secrets as ***) is the line the backend asks for.
      const [preview] = service.previewImport(text).servers;
      const line = preview!.launch;
      expect(line).toContain('API_TOKEN=***');
      expect(line).not.toContain('tok-import-1');
      expect(line).toContain(everythingScript);

      expect(await service.importServers(text, browser)).toMatchObject({ added: [], replaced: [], skipped: [{ name: 'imported', reason: `not confirmed: ${line}` }] });
      // A confirmation covers only the line it names: a file changed after the preview (one more
      // variable, so another launch line) is refused with the old line confirmed.
      const changed = importText({ NODE_OPTIONS: '--inspect=0.0.0.0:9229' });
      const changedLine = service.previewImport(changed).servers[0]!.launch;
      expect(changedLine).not.toBe(line);
      expect(await service.importServers(changed, { ...browser, confirmedLaunchLines: [line] })).toMatchObject({ added: [], skipped: [{ name: 'imported', reason: `not confirmed: ${changedLine}` }] });
      expect(service.configs()).toEqual([]);
      expect(launched()).toEqual([]);

      const confirmed = await service.importServers(text, { ...browser, confirmedLaunchLines: [line] });
      expect(confirmed).toMatchObject({ added: ['imported'], skipped: [] });
      const snapshot = service.get('imported');
      expect(snapshot.state.status).toBe('ready');
      // The confirmed line ran, and serves the connection. (It may have run twice: the SDK's version
      // negotiation probes the protocol era on a short-lived sibling started from the same line.)
      const started = launched();
      expect(started).toContain(String(snapshot.pid));

      // Replacing the saved server with a different launch needs its own confirmation too.
      expect(await service.importServers(changed, { ...browser, replace: true })).toMatchObject({ replaced: [], skipped: [{ name: 'imported', reason: `not confirmed: ${changedLine}` }] });
      const [kept] = service.configs();
      expect(kept).toMatchObject({ transport: 'stdio', env: {}, secretEnv: ['API_TOKEN', 'LAUNCH_MARKER'] });
      expect(launched()).toEqual(started);
    } finally {
      await service.close();
    }
  });
});

describe('provided servers (a cluster’s LanguageTools): in memory only, never saved', () => {
  const { service, dataDir } = newService();
  let peer: RunningPeer;
  let other: RunningPeer;
  const provided = (url: string) => ({ config: { name: 'search_team-a', transport: 'http' as const, url, enabled: true, headers: {}, secretHeaders: [], urlSecrets: [], hasBearerToken: false } });
  const ready = () => vi.waitFor(() => {
    expect(service.connection('search_team-a')?.state.status).toBe('ready');
    return 'ready';
  }, { timeout: 15_000 });

  beforeAll(async () => {
    [peer, other] = await Promise.all([startEverythingHttp('streamableHttp'), startEverythingHttp('streamableHttp')]);
    await service.init();
    await service.save({ config: everythingStdio('local') as never });
  });
  afterAll(async () => {
    await service.close();
    await peer?.close();
    await other?.close();
  });

  it('connects a provided server, moves it when its URL changes and withdraws it; servers.json holds only the saved one', async () => {
    expect(await service.setProvided([provided(peer.url)])).toEqual([]);
    expect(await ready()).toBe('ready');
    expect(service.isProvided('search_team-a')).toBe(true);
    expect(service.configs().map((config) => config.name)).toEqual(['local', 'search_team-a']);
    expect(JSON.parse(readFileSync(join(dataDir, 'servers.json'), 'utf8')).servers.map((server: { name: string }) => server.name)).toEqual(['local']);

    await service.setProvided([provided(other.url)]);
    expect(await ready()).toBe('ready');
    expect(service.get('search_team-a').config).toMatchObject({ url: other.url });

    await service.setProvided([]);
    expect(service.isProvided('search_team-a')).toBe(false);
    expect(service.connection('search_team-a')).toBeUndefined();
    expect(service.configs().map((config) => config.name)).toEqual(['local']);
  });

  it('never takes a saved server’s name, and cannot be saved over, edited or removed', async () => {
    const refusals = await service.setProvided([{ config: { ...provided(peer.url).config, name: 'local' } }]);
    expect(refusals).toEqual([{ name: 'local', reason: 'a saved server is named "local"; it is left as it is' }]);
    expect(service.get('local').config.transport).toBe('stdio');

    await service.setProvided([provided(peer.url)]);
    await expect(service.save({ config: everythingStdio('search_team-a') as never })).rejects.toThrow('"search_team-a" is a server the cluster provides (a LanguageTool); it cannot be saved or edited here');
    await expect(service.save({ config: everythingStdio('renamed') as never, previousName: 'search_team-a' })).rejects.toThrow('cannot be saved or edited here');
    await expect(service.remove('search_team-a')).rejects.toThrow('it goes when its LanguageTool does');
    await service.setProvided([]);
  });
});
