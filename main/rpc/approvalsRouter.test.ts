import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentCaller, operatorCaller } from '../../shared/caller';
import type { ToolApproval } from '../../shared/approvals';
import type { HoldRequest } from '../approvals/ApprovalHolder';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { approvalsRouter } from './approvalsRouter';
import { createCallerFactory } from './trpc';

let core: Core;
const callerFor = createCallerFactory(approvalsRouter);

beforeAll(async () => {
  core = await createCore({
    exampleWorkspace: false,
    appVersion: '0.0.0-test',
    host: 'cli',
    dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-approvals-rpc-')),
    secretStore: new MemorySecretStore(),
    logger: silentLogger,
    shutdownGraceMs: 200,
  });
});
afterAll(() => core?.close());

const request: HoldRequest = {
  agent: 'planner-bot',
  tool: 'mcp:everything.echo',
  operationClass: 'write',
  input: { message: 'hello' },
  reason: 'approval_required by ToolPermission echo-guard',
  policyVersion: 'v1',
  taskRef: 'session-9',
};

async function held() {
  let pending!: (approval: ToolApproval) => void;
  const created = new Promise<ToolApproval>((resolve) => (pending = resolve));
  const outcome = core.approvals.hold(request, { onPending: pending }).then(
    (approval) => approval.status.phase,
    (error: Error) => error.message,
  );
  return { name: (await created).metadata.name, outcome };
}

describe('approvals router', () => {
  it('lists held calls and lets the operator approve one, which releases the call', async () => {
    const rpc = callerFor({ core, caller: operatorCaller('ui') });
    const { name, outcome } = await held();
    expect((await rpc.list()).find((approval) => approval.metadata.name === name)?.status.phase).toBe('Pending');
    const decided = await rpc.decide({ name, decision: 'approve', comment: 'fine', decidedBy: 'alice' });
    expect(decided.status).toMatchObject({ phase: 'Approved', decided_by: 'alice', comment: 'fine' });
    expect(await outcome).toBe('Approved');
    expect((await rpc.get({ name })).status.phase).toBe('Approved');
  });

  it('answers a second decision with CONFLICT and an unknown name with NOT_FOUND', async () => {
    const rpc = callerFor({ core, caller: operatorCaller('ui') });
    const { name, outcome } = await held();
    await rpc.decide({ name, decision: 'deny' });
    expect(await outcome).toMatch(/was denied by \S+; the call did not run\.$/);
    await expect(rpc.decide({ name, decision: 'approve' })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('is no longer Pending') });
    await expect(rpc.decide({ name: 'nobody-knows-this', decision: 'approve' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(rpc.decide({ name: 'Bad Name', decision: 'approve' })).rejects.toBeInstanceOf(TRPCError);
  });

  it('never lets an agent decide', async () => {
    const { name } = await held();
    const asAgent = callerFor({ core, caller: agentCaller('planner-bot', 'gateway') });
    await expect(asAgent.decide({ name, decision: 'approve' })).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'Agent planner-bot cannot decide approvals: only the operator can.' });
    expect((await core.approvals.get(name)).status.phase).toBe('Pending');
    await core.approvals.decide(name, 'deny', 'alice');
  });

  it('streams the list again when a call is held', async () => {
    const rpc = callerFor({ core, caller: operatorCaller('ui') });
    const stream = (await rpc.watch())[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.done).toBe(false);
    const { name } = await held();
    for (;;) {
      const next = await stream.next();
      if (next.done) throw new Error('the subscription ended');
      if (next.value.some((approval) => approval.metadata.name === name && approval.status.phase === 'Pending')) break;
    }
    await stream.return?.();
    await core.approvals.decide(name, 'deny', 'alice');
  });
});

describe('core.approvals', () => {
  it('ends calls still held when the core closes, before anything they would call closes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-approvals-close-'));
    const own = await createCore({ exampleWorkspace: false, appVersion: '0.0.0-test', host: 'cli', dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, shutdownGraceMs: 200 });
    let pending!: () => void;
    const created = new Promise<void>((resolve) => (pending = resolve));
    const outcome = own.approvals.hold(request, { onPending: () => pending() }).catch((error: Error) => error.message);
    await created;
    await own.close();
    expect(await outcome).toMatch(/was canceled while it waited for a person's decision \(Tooldeck stopped\); the call did not run\.$/);
  });
});
