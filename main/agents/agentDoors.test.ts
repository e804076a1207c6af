import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operatorCaller } from '../../shared/caller';
import { GatewayAgentName } from '../../shared/gateway';
import { startMediationBed, type MediationBed } from '../mediation/testing/mediationBed';
import { wireFormatFor } from '../mediation/wireFormats';

/**
 * What agent X may do, and why, is one answer at every door: the attacks that once worked at the
 * mediation door, each refused now. Real parts: server-everything, aimock as the model provider,
 * the official `openai` client as the runner, the console's gateway serving mediation.
 */
let bed: MediationBed;

beforeAll(async () => {
  bed = await startMediationBed();
}, 60_000);

afterAll(async () => {
  await bed?.close();
});

function runner(agent: keyof MediationBed['credentials']) {
  return new OpenAI({ baseURL: `${bed.origin}/v1`, apiKey: bed.credentials[agent], maxRetries: 0 });
}

async function pendingApprovalOf(agent: string, seen: Set<string>) {
  return vi.waitFor(
    async () => {
      const found = (await bed.core.approvals.list()).find((approval) => approval.status.phase === 'Pending' && approval.spec.agent === agent && !seen.has(approval.metadata.name));
      expect(found).toBeDefined();
      seen.add(found!.metadata.name);
      return found!;
    },
    { timeout: 20_000 },
  );
}

describe('one set of rights at every door', { timeout: 60_000 }, () => {
  it('model grants are deny by default: an ungranted model is a 403 with one sentence, a granted one answers', async () => {
    await bed.core.agents.models.grant('stranger', []);
    const refused = await runner('stranger').chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'hello' }] }).catch((error: { status?: number; message: string }) => error);
    expect(refused).toMatchObject({ status: 403 });
    expect((refused as Error).message).toMatch(/Agent stranger is granted no models; the operator grants them with: tooldeck agents models stranger/);

    await bed.core.agents.models.grant('stranger', ['mock/*']);
    const answer = await runner('stranger').chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'hello' }] });
    expect(answer.choices[0]!.message.content).toBe('Hello from the model.');
    // Another provider's key stays out of reach.
    const other = await runner('stranger').chat.completions.create({ model: 'claude/claude-test', messages: [{ role: 'user', content: 'hello' }] }).catch((error: { status?: number; message: string }) => error);
    expect(other).toMatchObject({ status: 403 });
    expect((other as Error).message).toMatch(/Agent stranger may not use claude\/claude-test; it is granted mock\/\*/);
  });

  it('a daily token budget is counted and enforced the same way', async () => {
    await bed.core.agents.models.grant('hasty', ['mock/*'], { dailyTokens: 1 });
    await runner('hasty').chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'hello' }] });
    expect(bed.core.agents.models.tokensToday('hasty')).toBeGreaterThan(0);
    const spent = await runner('hasty').chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'hello' }] }).catch((error: { status?: number; message: string }) => error);
    expect(spent).toMatchObject({ status: 403 });
    expect((spent as Error).message).toMatch(/Agent hasty has spent its daily budget of 1 tokens/);
    await bed.core.agents.models.grant('hasty', ['*'], { dailyTokens: null });
  });

  it('/history/{agent} returns only the agent’s own mediated turns, never the operator’s Playground or eval turns', async () => {
    await runner('runner').chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'hello' }] });
    const format = wireFormatFor('/v1/chat/completions')!;
    for (const via of ['playground', 'eval'] as const) {
      await bed.core.mediation.runTurn({ agent: 'runner', caller: operatorCaller(via), format, model: 'mock/gpt-test', body: { messages: [{ role: 'user', content: 'hello, operator secret' }] }, continuity: false });
    }
    const history = await fetch(`${bed.origin}/history/runner`, { headers: { authorization: `Bearer ${bed.credentials.runner}` } });
    expect(history.status).toBe(200);
    const turns = (await history.json()) as { via: string }[];
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.every((turn) => turn.via === 'mediation')).toBe(true);
    expect(JSON.stringify(turns)).not.toMatch(/operator secret/);
  });

  it('a malformed escape in a path is a 400, never a 500', async () => {
    for (const path of ['/history/%E0%A4%A', '/history/%', '/mcp%ZZ']) {
      const answer = await fetch(`${bed.origin}${path}`, { headers: { authorization: `Bearer ${bed.credentials.runner}` } });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({ error: { message: 'The request path has a malformed percent-escape.' } });
    }
  });

  it('playground, eval and evals cannot be agent names, in any case', async () => {
    for (const name of ['playground', 'eval', 'evals', 'Evals']) {
      expect(GatewayAgentName.safeParse(name).success).toBe(false);
      await expect(bed.core.agents.credentials.create(name)).rejects.toThrow(/kept for the operator/);
    }
  });

  it('a grant taken away while a call waits for approval is refused once approved', async () => {
    // careful is granted get-sum twice: by its pod file and by the scoped ToolPermission that holds its sums for approval.
    const files = ['agents.claw-pod.yml', 'careful.permission.yaml'];
    const [pod, permission] = files.map((file) => readFileSync(join(bed.core.resources.workspace.dir, file), 'utf8')) as [string, string];
    const save = (path: string, text: string) => bed.core.resources.workspace.save({ path, text, expectedVersion: null, force: true });
    const seen = new Set<string>();
    const asked = runner('careful').chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'Please add 2 and 40' }] });
    const held = await pendingApprovalOf('careful', seen);
    try {
      // While a person decides, the pod file takes get-sum away and the permission stops naming careful (it holds everyone's sums instead).
      await save(files[0]!, pod.replace(/(careful:[\s\S]*?allow: )\[get-sum, echo\]/, '$1[echo]'));
      await save(files[1]!, permission.replace(/ {2}apply_mode: scoped\n {2}target_agents: \[careful\]\n/, ''));
      await vi.waitFor(() => expect(bed.core.agents.grants.isGranted('careful', 'mcp:everything.get-sum')).toBe(false), { timeout: 20_000 });
      await bed.core.approvals.decide(held.metadata.name, 'approve', 'ops');
      const answer = await asked;
      expect(answer.choices[0]!.message.content).toBe('The sum is unknown.');
      const refusal = (await bed.core.history.list({ agent: 'careful', limit: 5 })).items.find((record) => record.tool === 'get-sum');
      expect(refusal).toMatchObject({ status: 'denied', errorMessage: 'Policy denies mcp:everything.get-sum: not granted to careful.' });
    } finally {
      await save(files[0]!, pod);
      await save(files[1]!, permission);
      await vi.waitFor(() => expect(bed.core.agents.grants.isGranted('careful', 'mcp:everything.get-sum')).toBe(true), { timeout: 20_000 });
    }
  });

  it('a credential revoked while a mediated turn runs ends the turn at its next round', async () => {
    const seen = new Set<string>();
    const asked = runner('careful')
      .chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'Please add 2 and 40' }] })
      .catch((error: { status?: number; message: string }) => error);
    const held = await pendingApprovalOf('careful', seen);
    await bed.core.agents.credentials.revoke('careful');
    await bed.core.approvals.decide(held.metadata.name, 'approve', 'ops');
    const ended = await asked;
    expect(ended).toMatchObject({ status: 403 });
    expect((ended as Error).message).toMatch(/The credential of agent careful was revoked; the turn ended at round 2/);
  });
});
