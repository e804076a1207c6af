import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../main/core';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { startWebServer, type RunningWebServer } from './WebServer';

let core: Core;
let server: RunningWebServer;
let base: string;

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-web-'));
  const staticDir = mkdtempSync(join(tmpdir(), 'tooldeck-static-'));
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Tooldeck</title>');
  mkdirSync(join(staticDir, 'assets'));
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log("tooldeck");');
  core = await createCore({ appVersion: '9.9.9', host: 'web', dataDir, secretStore: new MemorySecretStore(), logger: silentLogger });
  server = await startWebServer({ core, staticDir });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server.close();
  await core.close();
});

const auth = () => ({ Authorization: `Bearer ${server.token}` });

/** A raw request (fetch may not set Host), answered with its status and headers; the body is drained. */
function exchange(path: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: IncomingHttpHeaders }>((resolve, reject) => {
    request({ host: '127.0.0.1', port: server.port, path, method, headers }, (res) => {
      res.resume();
      resolve({ status: res.statusCode!, headers: res.headers });
    })
      .on('error', reject)
      .end();
  });
}

describe('browser-mode server', () => {
  it('binds 127.0.0.1 and prints a URL whose fragment carries a 256-bit token', () => {
    expect(server.host).toBe('127.0.0.1');
    expect(server.url).toBe(`${base}/#token=${server.token}`);
    expect(Buffer.from(server.token, 'base64url')).toHaveLength(32);
  });

  it('refuses a non-loopback host unless told to bind it dangerously', async () => {
    await expect(startWebServer({ core, staticDir: '.', host: '0.0.0.0' })).rejects.toThrow(/--dangerously-bind-all/);
  });

  it('serves the static shell without a token, with the CSP header', async () => {
    const response = await fetch(`${base}/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<title>Tooldeck</title>');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('sends the anti-framing and cross-origin-read headers on static answers and on every refusal', async () => {
    // A refusal is a page too: one another site could frame (clickjacking), or load as a no-cors
    // resource, is exactly what these headers stop, so 403s must carry them like the shell does.
    const navigation = { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' };
    const cases: Array<[string, number, Promise<{ status: number; headers: IncomingHttpHeaders }>]> = [
      ['the shell', 200, exchange('/')],
      ['a client-side route (the shell)', 200, exchange('/servers/everything')],
      ['the shell, opened by a link on another site', 200, exchange('/', navigation)],
      ['an asset', 200, exchange('/assets/app.js')],
      ['a missing asset', 404, exchange('/assets/missing.js')],
      ['an API call', 200, exchange('/trpc/system.info', auth())],
      ['a foreign Host, static', 403, exchange('/', { Host: `evil.example:${server.port}` })],
      ['a foreign Host, API', 403, exchange('/trpc/system.info', { Host: `evil.example:${server.port}`, ...auth() })],
      ['a foreign Origin, API', 403, exchange('/trpc/system.info', { Origin: 'http://127.0.0.1:1', ...auth() })],
      ['a cross-site subresource, static', 403, exchange('/assets/app.js', { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'script' })],
      ['a same-site frame of the shell', 403, exchange('/', { 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'iframe' })],
      ['a cross-site API call', 403, exchange('/trpc/system.info', { 'Sec-Fetch-Site': 'cross-site', ...auth() })],
      ['a WebSocket upgrade', 403, exchange('/trpc/system.heartbeat', { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...auth() })],
      ['an API call without a token', 401, exchange('/trpc/system.info')],
      ['a POST to the shell', 405, exchange('/', {}, 'POST')],
    ];
    for (const [what, status, answer] of cases) {
      const { status: got, headers } = await answer;
      expect(got, what).toBe(status);
      expect(headers['cross-origin-resource-policy'], what).toBe('same-origin');
      expect(headers['x-frame-options'], what).toBe('DENY');
      expect(headers['content-security-policy'], what).toMatch(/(^|;\s*)frame-ancestors 'none'(;|$)/);
      expect(headers['x-content-type-options'], what).toBe('nosniff');
    }
  });

  it('refuses API calls without a token (401) and with a wrong one', async () => {
    expect((await fetch(`${base}/trpc/system.info`)).status).toBe(401);
    expect((await fetch(`${base}/trpc/system.info`, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await fetch(`${base}/trpc/system.heartbeat`)).status).toBe(401);
  });

  it('answers system.info with a valid token', async () => {
    const response = await fetch(`${base}/trpc/system.info`, { headers: auth() });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { data: { appVersion: string; host: string } } };
    expect(body.result.data).toMatchObject({ appVersion: '9.9.9', host: 'web' });
  });

  it('sets no cookie and ignores one: the token is accepted only as a header', async () => {
    const shell = await fetch(`${base}/`);
    expect(shell.headers.get('set-cookie')).toBeNull();
    expect((await fetch(`${base}/auth/session`, { method: 'POST', body: JSON.stringify({ token: server.token }) })).headers.get('set-cookie')).toBeNull();
    const withCookie = await fetch(`${base}/trpc/system.info`, { headers: { Cookie: `tooldeck_session=${server.token}` } });
    expect(withCookie.status).toBe(401);
  });

  it('refuses requests another site made (Sec-Fetch-Site) with 403, even carrying the token', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const response = await fetch(`${base}/trpc/system.info`, { headers: { ...auth(), 'Sec-Fetch-Site': site } });
      expect(response.status).toBe(403);
    }
    expect((await fetch(`${base}/trpc/system.info`, { headers: { ...auth(), 'Sec-Fetch-Site': 'same-origin' } })).status).toBe(200);
  });

  it('answers an oversized body with 413 before reading it, with or without a token', async () => {
    const { request } = await import('node:http');
    const statusFor = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        // Declares 100 MB and sends none of it: the answer must not wait for the body.
        const req = request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/trpc/tools.invoke', headers: { 'Content-Type': 'application/json', 'Content-Length': String(100 * 1024 * 1024), ...headers } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.flushHeaders();
      });
    expect(await statusFor({})).toBe(413);
    expect(await statusFor(auth())).toBe(413);
  });

  it('refuses a WebSocket upgrade', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port: server.port, path: '/trpc/system.heartbeat', headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...auth() } })
        .on('response', (res) => resolve(res.statusCode!))
        .on('upgrade', () => resolve(101))
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
  });

  it('gives 403 to a foreign Host on any request, static or API (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = (path: string, headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port: server.port, path, headers }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
          .on('error', reject)
          .end();
      });
    expect(await status('/', { Host: `evil.example:${server.port}` })).toBe(403);
    expect(await status('/trpc/system.info', { Host: `evil.example:${server.port}`, ...auth() })).toBe(403);
    expect(await status('/', { Host: `127.0.0.1:${server.port + 1}` })).toBe(403);
    expect(await status('/', { Host: `localhost:${server.port}` })).toBe(200);
    expect(await status('/', { Host: `[::1]:${server.port}` })).toBe(200);
  });

  it('gives 403 to a foreign Origin even with a valid token', async () => {
    const response = await fetch(`${base}/trpc/system.info`, { headers: { ...auth(), Origin: 'http://evil.example' } });
    expect(response.status).toBe(403);
    const same = await fetch(`${base}/trpc/system.info`, { headers: { ...auth(), Origin: base } });
    expect(same.status).toBe(200);
  });

  it('streams the heartbeat over SSE', async () => {
    const controller = new AbortController();
    const response = await fetch(`${base}/trpc/system.heartbeat?input=${encodeURIComponent(JSON.stringify({ intervalMs: 50 }))}`, {
      headers: auth(),
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    while ((text.match(/"seq":/g) ?? []).length < 3) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(text).toContain('"seq":0');
    expect(text).toContain('"seq":2');
  });

  it('does not serve files outside the renderer folder', async () => {
    const response = await fetch(`${base}/..%2f..%2fetc%2fpasswd`);
    const body = await response.text();
    expect(body).not.toContain('root:');
    // Unknown paths without an extension fall back to the app shell (client-side routes).
    expect(response.status === 404 || body.includes('<title>Tooldeck</title>')).toBe(true);
  });
});
