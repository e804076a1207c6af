import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolApproval } from '../../shared/approvals';
import type { HoldRequest } from '../../main/approvals/ApprovalHolder';
import { createCore, type Core } from '../../main/core';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { startWebServer, type RunningWebServer } from './WebServer';

let core: Core;
let server: RunningWebServer;

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-approvals-web-'));
  core = await createCore({ exampleWorkspace: false, appVersion: '0.0.0-test', host: 'web', dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, shutdownGraceMs: 200 });
  server = await startWebServer({ core, staticDir: mkdtempSync(join(tmpdir(), 'tooldeck-static-')), maxBodyBytes: 1024 * 1024 });
});
afterAll(async () => {
  await server?.close();
  await core?.close();
});

const holdRequest: HoldRequest = {
  agent: 'planner-bot',
  tool: 'mcp:files.delete_file',
  operationClass: 'delete',
  input: { path: '/srv/reports/q3.csv' },
  reason: 'approval_required by ToolPermission files-guard',
  policyVersion: 'v1',
  taskRef: 'session-1',
};

async function held() {
  let pending!: (approval: ToolApproval) => void;
  const created = new Promise<ToolApproval>((resolve) => (pending = resolve));
  const outcome = core.approvals.hold(holdRequest, { onPending: pending }).then(
    (approval) => `${approval.status.phase} by ${approval.status.decided_by}`,
    (error: Error) => error.message,
  );
  return { name: (await created).metadata.name, outcome };
}

/** A raw exchange (fetch cannot set Host or Sec-Fetch-Site freely): status and parsed JSON body. */
function exchange(method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string>; token?: boolean } = {}) {
  const headers: Record<string, string> = { ...(options.token === false ? {} : { Authorization: `Bearer ${server.token}` }), ...options.headers };
  if (options.body !== undefined) headers['Content-Type'] ??= 'application/json';
  return new Promise<{ status: number; body: Record<string, unknown>; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const decide = (name: string, verdict: string, body: unknown, headers: Record<string, string> = {}) =>
  exchange('POST', `/v1/tool-approvals/${name}/${verdict}`, { body: typeof body === 'string' ? body : JSON.stringify(body), headers });

describe("Orloj's ToolApproval API on the console port", () => {
  it('lists and reads approvals as Orloj does ({items}, the object)', async () => {
    const { name } = await held();
    const list = await exchange('GET', '/v1/tool-approvals');
    expect(list.status).toBe(200);
    expect(list.headers['x-frame-options']).toBe('DENY');
    expect((list.body.items as ToolApproval[]).find((item) => item.metadata.name === name)).toMatchObject({ apiVersion: 'orloj.dev/v1', kind: 'ToolApproval', status: { phase: 'Pending' } });
    const one = await exchange('GET', `/v1/tool-approvals/${name}`);
    expect(one).toMatchObject({ status: 200, body: { metadata: { name }, spec: { agent: 'planner-bot', input: { path: '/srv/reports/q3.csv' } } } });
    await core.approvals.decide(name, 'deny', 'alice');
  });

  it('approves with {"decided_by"}: 200 with the approval, and the held call runs; a second decision is 409', async () => {
    const { name, outcome } = await held();
    const approved = await decide(name, 'approve', { decided_by: 'alice', comment: 'ok for Q3' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ metadata: { name }, status: { phase: 'Approved', decision: 'approved', decided_by: 'alice', comment: 'ok for Q3' } });
    expect(await outcome).toBe('Approved by alice');
    const again = await decide(name, 'deny', { decided_by: 'bob' });
    expect(again).toMatchObject({ status: 409, body: { error: expect.stringMatching(new RegExp(`^Approval ${name} is no longer Pending: it was approved by alice at `)) } });
  });

  it('denies, taking Orloj\'s `reason` as the comment when there is none', async () => {
    const { name, outcome } = await held();
    const denied = await decide(name, 'deny', { decided_by: 'alice', reason: 'wrong file' });
    expect(denied).toMatchObject({ status: 200, body: { status: { phase: 'Denied', comment: 'wrong file' } } });
    expect(await outcome).toBe(`Approval ${name} was denied by alice: wrong file; the call did not run.`);
  });

  it('answers 404 for an unknown name, 400 for a bad name or body, 413 for a large one, 405 for the wrong method — each with one sentence', async () => {
    const { name } = await held();
    expect(await decide('no-such-approval', 'approve', { decided_by: 'alice' })).toMatchObject({ status: 404, body: { error: 'No approval named no-such-approval.' } });
    expect(await exchange('GET', '/v1/tool-approvals/no-such-approval')).toMatchObject({ status: 404 });
    expect(await exchange('GET', '/v1/tool-approvals/Bad%20Name')).toMatchObject({ status: 400, body: { error: expect.stringContaining('is not an approval name') } });
    expect(await decide('..%2F..%2Fetc', 'approve', { decided_by: 'alice' })).toMatchObject({ status: 400 });
    expect(await decide(name, 'approve', 'not json')).toMatchObject({ status: 400, body: { error: 'The body must be JSON: {"decided_by": "…", "comment": "…"}' } });
    expect(await decide(name, 'approve', [1, 2])).toMatchObject({ status: 400, body: { error: expect.stringContaining('must be a JSON object') } });
    expect(await decide(name, 'approve', {})).toMatchObject({ status: 400, body: { error: 'decided_by (who decides) is required, as a string' } });
    expect(await decide(name, 'approve', { decided_by: 42 })).toMatchObject({ status: 400 });
    expect(await decide(name, 'approve', { decided_by: 'alice', comment: 'x'.repeat(3000) })).toMatchObject({ status: 400, body: { error: 'A comment may have at most 2000 characters; this one has 3000.' } });
    expect(await decide(name, 'approve', { decided_by: 'alice\u001b[2J' })).toMatchObject({ status: 400 });
    expect(await decide(name, 'approve', { decided_by: 'alice', comment: 'y'.repeat(100_000) })).toMatchObject({ status: 413 });
    expect(await exchange('GET', `/v1/tool-approvals/${name}/approve`)).toMatchObject({ status: 405 });
    expect(await exchange('POST', '/v1/tool-approvals', { body: '{}' })).toMatchObject({ status: 405 });
    expect(await exchange('DELETE', `/v1/tool-approvals/${name}`)).toMatchObject({ status: 405 });
    expect(await exchange('GET', `/v1/tool-approvals/${name}/other`)).toMatchObject({ status: 404 });
    // None of that decided anything.
    expect((await core.approvals.get(name)).status.phase).toBe('Pending');
    await core.approvals.decide(name, 'deny', 'alice');
  });

  it('keeps the console guards: no token 401, a wrong one 401, the token as a cookie 401, another site 403, a foreign Host or Origin 403, an oversized declared body 413', async () => {
    const { name } = await held();
    const body = JSON.stringify({ decided_by: 'mallory' });
    const refusals: Array<[string, Promise<{ status: number }>, number]> = [
      ['no token', exchange('POST', `/v1/tool-approvals/${name}/approve`, { body, token: false }), 401],
      ['no token, list', exchange('GET', '/v1/tool-approvals', { token: false }), 401],
      ['a wrong token', exchange('POST', `/v1/tool-approvals/${name}/approve`, { body, token: false, headers: { Authorization: 'Bearer not-the-token' } }), 401],
      ['the token as a cookie', exchange('POST', `/v1/tool-approvals/${name}/approve`, { body, token: false, headers: { Cookie: `token=${server.token}` } }), 401],
      ['another site, with the token', exchange('POST', `/v1/tool-approvals/${name}/approve`, { body, headers: { 'Sec-Fetch-Site': 'cross-site' } }), 403],
      ['a same-site page (another port), with the token', exchange('POST', `/v1/tool-approvals/${name}/approve`, { body, headers: { 'Sec-Fetch-Site': 'same-site' } }), 403],
      ['a foreign Host (DNS rebinding)', exchange('POST', `/v1/tool-approvals/${name}/approve`, { body, headers: { Host: `evil.example:${server.port}` } }), 403],
      ['a foreign Origin', exchange('POST', `/v1/tool-approvals/${name}/approve`, { body, headers: { Origin: 'http://evil.example' } }), 403],
      ['a declared body over the cap, without a token', exchange('POST', `/v1/tool-approvals/${name}/approve`, { token: false, headers: { 'Content-Length': String(100 * 1024 * 1024) } }), 413],
    ];
    for (const [what, answer, status] of refusals) expect((await answer).status, what).toBe(status);
    expect((await core.approvals.get(name)).status.phase).toBe('Pending');
    await core.approvals.decide(name, 'deny', 'alice');
  });
});
