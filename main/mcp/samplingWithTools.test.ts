import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingInteraction } from '../../shared/mcp';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { McpService } from './McpService';
import { pipelineFor } from './testing/pipelineFor';

const script = resolve(import.meta.dirname, '../../e2e/peers/mcp/toolSamplingServer.mjs');

function next(service: McpService, seen: Set<string>): Promise<PendingInteraction> {
  return new Promise((done) => {
    const check = (pending: PendingInteraction[]) => {
      const fresh = pending.find((p) => !seen.has(p.id));
      if (!fresh) return;
      seen.add(fresh.id);
      stop();
      done(fresh);
    };
    const stop = service.broker.onChange(check);
    check(service.broker.pending());
  });
}

describe('sampling with tools (SEP-1577), answered by the operator', () => {
  const service = new McpService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-sampling-tools-')), secretStore: new MemorySecretStore(), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' } });
  const tools = pipelineFor(service);
  beforeAll(async () => {
    await service.init();
    await service.save({ config: { name: 'planner', transport: 'stdio', command: process.execPath, args: [script] } as never });
  });
  afterAll(async () => {
    tools.close();
    await service.close();
  });

  it('shows the offered tools, answers with a tool call, then with text after the tool result', async () => {
    const seen = new Set<string>();
    const call = tools.call('planner', 'plan-trip', { city: 'Oslo' });
    const first = await next(service, seen);
    expect(first).toMatchObject({ kind: 'sampling', tools: [expect.objectContaining({ name: 'get_weather' })], toolChoice: { mode: 'auto' } });
    service.broker.answer(first.id, { kind: 'sampling', action: 'reply', text: '', model: 'operator', toolUse: { name: 'get_weather', input: { city: 'Oslo' } } });

    const second = await next(service, seen);
    const messages = JSON.stringify((second as Extract<PendingInteraction, { kind: 'sampling' }>).messages);
    expect(messages).toContain('"type":"tool_use"');
    expect(messages).toContain('Weather in Oslo: snow');
    service.broker.answer(second.id, { kind: 'sampling', action: 'reply', text: 'Bring skis.', model: 'operator' });

    const result = await call;
    expect(result.content[0]).toMatchObject({ type: 'text', text: 'Plan: Bring skis. (the model called get_weather {"city":"Oslo"}; weather snow)' });
  }, 20_000);

  it('refuses a tool the server did not offer', async () => {
    const seen = new Set<string>();
    const call = tools.call('planner', 'plan-trip', { city: 'Rome' });
    const first = await next(service, seen);
    service.broker.answer(first.id, { kind: 'sampling', action: 'reply', text: '', model: 'operator', toolUse: { name: 'rm_rf', input: {} } });
    // The server's sampling request fails with Tooldeck's refusal; its tool reports that as an error result.
    const result = await call;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('The server offered no tool named rm_rf');
  }, 20_000);
});
