import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_SERVERS, startAppServer } from '../../e2e/peers/mcp/appServers';
import type { RunningPeer } from '../../e2e/peers/mcp/everything';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { McpService } from '../mcp/McpService';
import { McpCatalogSync } from '../mcp/McpToolSource';
import { MemoryInvocationRecorder } from '../registry/testing/MemoryInvocationRecorder';
import { InvocationPipeline } from '../registry/InvocationPipeline';
import { ToolCatalog } from '../registry/ToolCatalog';
import { McpAppHost } from './McpAppHost';

/** The console page as the browser loads the app into it: an iframe request. */
const asIframe = { 'sec-fetch-dest': 'iframe' };

describe('McpAppHost with @modelcontextprotocol/server-basic-react', () => {
  let peer: RunningPeer;
  let mcp: McpService;
  let host: McpAppHost;
  let sync: McpCatalogSync;
  const recorder = new MemoryInvocationRecorder();

  beforeAll(async () => {
    peer = await startAppServer(APP_SERVERS.basicReact);
    mcp = new McpService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-apps-')), secretStore: new MemorySecretStore(), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' } });
    const catalog = new ToolCatalog();
    sync = new McpCatalogSync(mcp, catalog, silentLogger);
    const pipeline = new InvocationPipeline({ catalog, recorder });
    host = new McpAppHost({ mcp, catalog, pipeline, logger: silentLogger });
    await mcp.init();
    await mcp.save({ config: { name: 'clock', transport: 'http', url: peer.url } as never });
  }, 30_000);
  afterAll(async () => {
    await host.closeAll();
    sync.close();
    await mcp.close();
    await peer.close();
  });

  it('serves the ui:// resource from a loopback origin of its own, to iframes only, with its CSP', async () => {
    const app = await host.open({ server: 'clock', tool: 'get-time', hostOrigin: 'http://127.0.0.1:5173' });
    expect(app).toMatchObject({ resourceUri: 'ui://get-time/mcp-app.html', sandbox: expect.not.stringContaining('allow-same-origin'), allow: '', warnings: [] });
    expect(app.src).toBe(`${app.origin}/app/${app.appId}`);
    const page = await fetch(app.src, { headers: asIframe });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(app.csp);
    expect(app.csp).toContain("connect-src 'none'");
    expect(app.csp).toContain('frame-ancestors http://127.0.0.1:5173');
    expect(await page.text()).toContain('Get Server Time');

    expect((await fetch(app.src, { headers: { 'sec-fetch-dest': 'document' } })).status).toBe(403);
    expect((await fetch(`${app.origin}/app/${'x'.repeat(24)}`, { headers: asIframe })).status).toBe(404);
    expect((await fetch(`${app.origin}/trpc/mcp.list`)).status).toBe(404);
    // DNS rebinding: a request naming another host is refused.
    const rebound = await new Promise<number>((resolve, reject) => {
      const url = new URL(app.src);
      request({ host: url.hostname, port: url.port, path: url.pathname, headers: { ...asIframe, host: `evil.example:${url.port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(rebound).toBe(421);
  });

  it("records the browser's CSP reports for the app", async () => {
    const app = await host.open({ server: 'clock', tool: 'get-time', hostOrigin: 'http://127.0.0.1:5173' });
    const seen = new Promise<string>((resolve) => host.onChange(resolve));
    const report = { 'csp-report': { 'document-uri': app.src, 'effective-directive': 'connect-src', 'blocked-uri': 'https://example.org/x' } };
    expect((await fetch(`${app.src}/csp`, { method: 'POST', headers: { 'content-type': 'application/csp-report' }, body: JSON.stringify(report) })).status).toBe(204);
    expect(await seen).toBe(app.appId);
    expect(host.activity(app.appId).violations).toEqual([expect.objectContaining({ directive: 'connect-src', blockedUri: 'https://example.org/x' })]);
  });

  it("carries the app's tools/call through the pipeline (recorded), for its own server's tools only", async () => {
    const app = await host.open({ server: 'clock', tool: 'get-time', hostOrigin: 'http://127.0.0.1:5173' });
    const outcome = await host.callTool({ appId: app.appId, name: 'get-time', arguments: {} });
    expect(outcome.result?.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(recorder.list(1)[0]).toMatchObject({ id: outcome.record.id, sourceName: 'clock', tool: 'get-time', status: 'ok' });
    await expect(host.callTool({ appId: app.appId, name: 'delete-everything', arguments: {} })).rejects.toMatchObject({ code: 'NotFound' });
    host.close(app.appId);
    await expect(host.callTool({ appId: app.appId, name: 'get-time', arguments: {} })).rejects.toMatchObject({ code: 'NotFound' });
    expect((await fetch(app.src, { headers: asIframe })).status).toBe(404);
  });

  it('refuses tools without an app', async () => {
    await expect(host.open({ server: 'clock', tool: 'nope', hostOrigin: 'http://127.0.0.1:5173' })).rejects.toMatchObject({ code: 'NotFound' });
  });
});
