import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * A web page on another port of 127.0.0.1 (any dev server the operator runs) and on `localhost`
 * attacks a running console in the same browser: it must receive no credential, and nothing it
 * sends may run, be recorded or be read — queries, mutations, subscriptions, the metrics port.
 */

let tooldeck: TooldeckServer;
let metricsUrl: string;
let attacker: { server: Server; port: number; seen: IncomingHttpHeaders[] };
const marker = join(mkdtempSync(join(tmpdir(), 'tooldeck-attack-')), 'pwned');
const ECHO_MARK = 'attacker-was-here';

async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${tooldeck.origin}/trpc/${path}`, { ...init, headers: { Authorization: `Bearer ${tooldeck.token}`, 'Content-Type': 'application/json', ...init.headers } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: T } }).result.data;
}

function attackPage(target: string, metrics: string): string {
  const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
  const invoke = { name: 'mcp:everything.echo', arguments: { message: ECHO_MARK }, confirmed: true };
  const save = { config: { name: 'pwned', transport: 'stdio', command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'pwned')`] } };
  const urls = {
    query: `${target}/trpc/system.info`,
    subscription: `${target}/trpc/tools.invokeStream?input=${input(invoke)}`,
    mutationInvoke: `${target}/trpc/tools.invoke`,
    mutationSave: `${target}/trpc/mcp.save`,
    metrics,
  };
  // Every way a page can make a request without the console's help.
  return `<!doctype html><title>attacker</title><body><iframe name="sink"></iframe><script>
  const urls = ${JSON.stringify(urls)};
  const invokeBody = ${JSON.stringify(JSON.stringify(invoke))};
  const saveBody = ${JSON.stringify(JSON.stringify(save))};
  const settle = (p) => p.then(() => 'resolved', (e) => 'rejected');
  const element = (tag, attrs) => new Promise((done) => {
    const el = document.createElement(tag);
    el.onload = () => done('load'); el.onerror = () => done('error');
    Object.assign(el, attrs); document.body.appendChild(el);
    setTimeout(() => done('pending'), 3000);
  });
  const attacks = [];
  for (const url of [urls.query, urls.subscription, urls.metrics]) {
    attacks.push(element('img', { src: url }));
    attacks.push(element('script', { src: url }));
    attacks.push(element('link', { rel: 'prefetch', href: url }));
    attacks.push(settle(fetch(url, { mode: 'no-cors', credentials: 'include' })));
    attacks.push(settle(fetch(url, { credentials: 'include' })));
  }
  for (const [url, body] of [[urls.mutationInvoke, invokeBody], [urls.mutationSave, saveBody]]) {
    attacks.push(settle(fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', body, headers: { 'Content-Type': 'text/plain' } })));
    attacks.push(settle(fetch(url, { method: 'POST', credentials: 'include', body, headers: { 'Content-Type': 'application/json' } })));
    attacks.push(new Promise((done) => {
      const form = document.createElement('form');
      form.method = 'POST'; form.action = url; form.enctype = 'text/plain'; form.target = 'sink';
      const field = document.createElement('input'); field.name = body.slice(0, -1); field.value = '}';
      form.appendChild(field); document.body.appendChild(form);
      document.querySelector('iframe').onload = () => done('form'); form.submit();
      setTimeout(() => done('form-pending'), 3000);
    }));
  }
  attacks.push(new Promise((done) => {
    const source = new EventSource(urls.subscription, { withCredentials: true });
    source.onmessage = () => done('message'); source.onerror = () => { source.close(); done('error'); };
  }));
  attacks.push(new Promise((done) => {
    const socket = new WebSocket(urls.query.replace('http', 'ws'));
    socket.onopen = () => done('open'); socket.onerror = () => done('error'); socket.onclose = () => done('close');
  }));
  Promise.all(attacks).then((results) => { document.title = 'done:' + results.join(','); });
  </script></body>`;
}

test.beforeAll(async () => {
  tooldeck = await startTooldeckServer({ args: ['--metrics-port', '0'] });
  metricsUrl = await tooldeck.metricsUrl();
  // The example workspace's server-everything is the target: wait until its echo is callable.
  await expect.poll(async () => (await api<Array<{ name: string }>>('tools.list')).map((tool) => tool.name), { timeout: 30_000 }).toContain('mcp:everything.echo');
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.setHeader('Content-Type', 'text/html');
    res.end(attackPage(tooldeck.origin, metricsUrl));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  attacker = { server, port: (server.address() as AddressInfo).port, seen };
});

test.afterAll(async () => {
  attacker?.server.close();
  await tooldeck?.stop();
});

for (const host of ['127.0.0.1', 'localhost']) {
  test(`a page on ${host}:<another port> gets no credential and runs, records and reads nothing`, async ({ browser }) => {
    const context = await browser.newContext();
    const consolePage = await context.newPage();
    await consolePage.goto(tooldeck.url);
    await expect(consolePage.getByRole('navigation', { name: 'Sections' })).toBeVisible();
    expect(await context.cookies()).toEqual([]);

    const page = await context.newPage();
    const statuses: Array<{ url: string; status: number }> = [];
    page.on('response', (response) => {
      if (response.url().startsWith(tooldeck.origin) || response.url().startsWith(metricsUrl.replace('/metrics', ''))) statuses.push({ url: response.url(), status: response.status() });
    });
    await page.goto(`http://${host}:${attacker.port}/`);
    await expect(page).toHaveTitle(/^done:/, { timeout: 30_000 });

    // The attacker's server saw every header the browser sent it: none carries the console token.
    for (const headers of attacker.seen) expect(JSON.stringify(headers)).not.toContain(tooldeck.token);
    // Whatever the browser let the page see of the console's and the metrics port's answers is a
    // 403 (the rest it blocks itself: Cross-Origin-Resource-Policy).
    expect(statuses.length).toBeGreaterThan(0);
    for (const { url, status } of statuses) expect({ url, status }).toEqual({ url, status: 403 });
    expect(existsSync(marker)).toBe(false);
    expect((await api<Array<{ config: { name: string } }>>('mcp.list')).map((server) => server.config.name)).not.toContain('pwned');
    // History is written in batches: a call of our own, once it is in history, proves anything
    // recorded before it is there too.
    const sentinel = `sentinel-${host}`;
    await api('tools.invoke', { method: 'POST', body: JSON.stringify({ name: 'mcp:everything.echo', arguments: { message: sentinel } }) });
    const recorded = () => api<{ items: Array<{ argumentsJson: string }> }>(`history.list?input=${encodeURIComponent(JSON.stringify({ limit: 200 }))}`).then((page) => page.items.map((row) => row.argumentsJson));
    await expect.poll(async () => (await recorded()).some((args) => args.includes(sentinel)), { timeout: 15_000 }).toBe(true);
    expect((await recorded()).filter((args) => args.includes(ECHO_MARK))).toEqual([]);
    await context.close();
  });
}

test('the console itself still works with its header credential in the same browser', async ({ page }) => {
  await page.goto(tooldeck.url);
  await expect(page.getByRole('navigation', { name: 'Sections' })).toBeVisible();
  // A reload keeps the tab's credential (sessionStorage), and still no cookie exists.
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Sections' })).toBeVisible();
  expect(await page.context().cookies()).toEqual([]);
  expect(await page.evaluate(() => document.cookie)).toBe('');
});
