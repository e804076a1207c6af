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
    // Scripts and forms only: no popups (they would leave the CSP behind and reach the OS browser), no top navigation.
    expect(app.sandbox.split(' ').sort()).toEqual(['allow-forms', 'allow-scripts']);
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

/** A real MCP App server (SDK + ext-apps helpers) with one app that names `_meta.ui.domain` and one that does not. */
const appDomainServer = join(import.meta.dirname, '../../e2e/peers/mcp/appDomainServerForTests.mjs');
const CONSOLE_ORIGIN = 'http://127.0.0.1:5173';

describe('McpAppHost and _meta.ui.domain', () => {
  let mcp: McpService;
  let host: McpAppHost;
  let sync: McpCatalogSync;
  let catalog: ToolCatalog;

  beforeAll(async () => {
    mcp = new McpService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-apps-')), secretStore: new MemorySecretStore(), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' } });
    catalog = new ToolCatalog();
    sync = new McpCatalogSync(mcp, catalog, silentLogger);
    host = new McpAppHost({ mcp, catalog, pipeline: new InvocationPipeline({ catalog, recorder: new MemoryInvocationRecorder() }), logger: silentLogger });
    await mcp.init();
    for (const [name, domain] of [
      ['apps', 'a904794854a047f6.apps.example.com'],
      // Another server naming the very same domain.
      ['squatter', 'a904794854a047f6.apps.example.com'],
    ]) {
      await mcp.save({ config: { name, transport: 'stdio', command: process.execPath, args: [appDomainServer], env: { APP_DOMAIN: domain } } as never });
    }
  }, 30_000);
  afterAll(async () => {
    await host.closeAll();
    sync.close();
    await mcp.close();
  });

  it("gets a dedicated origin, distinct from the console's and from an app without it, still sandboxed and under its CSP", async () => {
    const own = await host.open({ server: 'apps', tool: 'show-domain', hostOrigin: CONSOLE_ORIGIN });
    const plain = await host.open({ server: 'apps', tool: 'show-plain', hostOrigin: CONSOLE_ORIGIN });
    expect(own.meta.domain).toBe('a904794854a047f6.apps.example.com');
    expect(plain.meta.domain).toBeUndefined();

    // Its own loopback origin: not the console's, not the shared one of apps without a domain.
    expect(own.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(own.origin).not.toBe(CONSOLE_ORIGIN);
    expect(own.origin).not.toBe(plain.origin);
    expect(own.src).toBe(`${own.origin}/app/${own.appId}`);
    // Stable for the server's apps with that domain.
    expect((await host.open({ server: 'apps', tool: 'show-domain', hostOrigin: CONSOLE_ORIGIN })).origin).toBe(own.origin);
    // Each origin serves only its own apps.
    expect((await fetch(`${plain.origin}/app/${own.appId}`, { headers: asIframe })).status).toBe(404);
    expect((await fetch(`${own.origin}/app/${plain.appId}`, { headers: asIframe })).status).toBe(404);

    // Still a sandbox without allow-same-origin (an opaque origin), like any app.
    for (const app of [own, plain]) {
      expect(app.sandbox.split(' ')).toEqual(expect.arrayContaining(['allow-scripts']));
      expect(app.sandbox).not.toContain('allow-same-origin');
      expect(app.warnings).toEqual([]);
    }
    // Still served under the CSP it declares, to iframes only.
    expect(own.csp).toContain('connect-src https://api.example.com');
    expect(own.csp).toContain("default-src 'none'");
    expect(own.csp).toContain(`frame-ancestors ${CONSOLE_ORIGIN}`);
    const page = await fetch(own.src, { headers: asIframe });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(own.csp);
    expect(await page.text()).toContain('domain app');
    expect((await fetch(own.src, { headers: { 'sec-fetch-dest': 'document' } })).status).toBe(403);
  });

  it("does not let another server join an app's origin by naming the same domain", async () => {
    const own = await host.open({ server: 'apps', tool: 'show-domain', hostOrigin: CONSOLE_ORIGIN });
    const squatter = await host.open({ server: 'squatter', tool: 'show-domain', hostOrigin: CONSOLE_ORIGIN });
    expect(squatter.meta.domain).toBe(own.meta.domain);
    expect(squatter.origin).not.toBe(own.origin);
    expect((await fetch(`${squatter.origin}/app/${own.appId}`, { headers: asIframe })).status).toBe(404);
  });

  it('closes a dedicated origin once its last app closes, and opens a new one when needed; the shared origin stays', async () => {
    const apps = new McpAppHost({ mcp, catalog, pipeline: new InvocationPipeline({ catalog, recorder: new MemoryInvocationRecorder() }), logger: silentLogger });
    try {
      const first = await apps.open({ server: 'apps', tool: 'show-domain', hostOrigin: CONSOLE_ORIGIN });
      const second = await apps.open({ server: 'apps', tool: 'show-domain', hostOrigin: CONSOLE_ORIGIN });
      const plain = await apps.open({ server: 'apps', tool: 'show-plain', hostOrigin: CONSOLE_ORIGIN });
      expect(second.origin).toBe(first.origin);

      apps.close(first.appId);
      // Another app still uses the origin: it keeps serving.
      expect((await fetch(second.src, { headers: asIframe })).status).toBe(200);

      apps.close(second.appId);
      await expect.poll(() => fetch(`${first.origin}/`).then(() => 'listening', () => 'closed')).toBe('closed');
      expect((await fetch(plain.src, { headers: asIframe })).status).toBe(200);

      const again = await apps.open({ server: 'apps', tool: 'show-domain', hostOrigin: CONSOLE_ORIGIN });
      const page = await fetch(again.src, { headers: asIframe });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('domain app');
    } finally {
      await apps.closeAll();
    }
  });
});
