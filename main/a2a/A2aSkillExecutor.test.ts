import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { A2aAgentService } from './A2aAgentService';
import { A2aSkillExecutor, skillEntries } from './A2aSkillExecutor';
import { startPeers, type PeerSet } from '../../e2e/peers/a2a/startPeers';

let peers: PeerSet;
let service: A2aAgentService;
let executor: A2aSkillExecutor;

beforeAll(async () => {
  peers = await startPeers({ sample: { kind: 'sample', options: { stepDelayMs: 10 } }, legacy: { kind: 'legacy', options: { stepDelayMs: 10, streaming: false } } });
  service = new A2aAgentService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-skills-')), secretStore: new MemorySecretStore(), logger: silentLogger });
  await service.save({ name: 'sample', url: peers.urls.sample! });
  await service.save({ name: 'legacy', url: peers.urls.legacy! });
  executor = new A2aSkillExecutor(service);
});
afterAll(() => peers?.stop());

describe('A2A skills as callable entries', () => {
  it('lists every skill of the card as an entry taking {text}', async () => {
    const entries = skillEntries('sample', await service.card('sample'));
    expect(entries.map((e) => e.toolName)).toEqual(['echo', 'report', 'ask', 'slow', 'fail']);
    expect(entries[1]).toEqual({
      toolName: 'report',
      title: 'Report',
      description: 'Works in steps, then returns a text report and the same figures as JSON.',
      tags: ['test', 'streaming', 'artifacts'],
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
  });

  it('invokes a skill and returns its text, task and artifacts', async () => {
    expect(await executor.invokeSkill('sample', 'echo', { text: 'ping' })).toEqual({ content: [{ type: 'text', text: 'ping' }] });
    const report = await executor.invokeSkill('sample', 'report', { text: 'sales' });
    expect(report.isError).toBeUndefined();
    expect(report.content[0]!.text).toContain('# Report on sales');
    expect(report.structuredContent).toMatchObject({ state: 'COMPLETED', taskId: expect.any(String) });
    expect(report.structuredContent!.artifacts.map((a) => a.parts[0]!.kind)).toEqual(['text', 'data']);
  });

  it('works the same against a 0.3 agent that does not stream', async () => {
    const report = await executor.invokeSkill('legacy', 'report', { text: 'old' });
    expect(report.structuredContent).toMatchObject({ state: 'COMPLETED' });
    expect(report.content[0]!.text).toContain('# Report on old');
  });

  it('returns the question of an INPUT_REQUIRED task, and continues it when given its ids', async () => {
    const asked = await executor.invokeSkill('sample', 'ask', { text: '' });
    expect(asked).toMatchObject({ content: [{ type: 'text', text: 'What is your name?' }], structuredContent: { state: 'INPUT_REQUIRED' } });
    expect(asked.isError).toBeUndefined();
    const { taskId, contextId } = asked.structuredContent!;
    const answered = await executor.invokeSkill('sample', 'ask', { text: 'Ada', taskId, contextId });
    expect(answered).toMatchObject({ content: [{ type: 'text', text: 'Hello, Ada!' }], structuredContent: { state: 'COMPLETED', taskId } });
  });

  it('reports a FAILED task as an error result with the reason', async () => {
    const failed = await executor.invokeSkill('sample', 'fail', { text: 'disk full' });
    expect(failed).toMatchObject({ isError: true, structuredContent: { state: 'FAILED' } });
    expect(failed.content[0]!.text).toBe('Could not finish: disk full.');
  });

  it('cancels the task at the agent when the call is aborted', async () => {
    const controller = new AbortController();
    const pending = executor.invokeSkill('sample', 'slow', { text: '' }, { signal: controller.signal });
    const working = () => service.threads('sample').flatMap((t) => t.tasks).find((task) => task.state === 'WORKING');
    while (!working()) await new Promise((resolve) => setTimeout(resolve, 20));
    const taskId = working()!.taskId;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'Canceled' });
    expect((await service.getTask('sample', taskId)).state).toBe('CANCELED');
  });

  it('refuses unknown skills and bad arguments', async () => {
    await expect(executor.invokeSkill('sample', 'nope', { text: 'x' })).rejects.toMatchObject({ code: 'ToolNotFound' });
    await expect(executor.invokeSkill('sample', 'echo', { words: 'x' })).rejects.toMatchObject({ code: 'InvalidArguments' });
  });
});
