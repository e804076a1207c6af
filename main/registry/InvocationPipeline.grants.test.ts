import { describe, expect, it } from 'vitest';
import { agentCaller, operatorCaller } from '../../shared/caller';
import type { ToolSource } from '../../shared/invocation';
import { createToolEntry } from './createToolEntry';
import { InvocationPipeline } from './InvocationPipeline';
import type { ToolPermission } from './policy/ToolPermission';
import { FakeExecutor } from './testing/FakeExecutor';
import { MemoryInvocationRecorder } from './testing/MemoryInvocationRecorder';
import { ToolCatalog } from './ToolCatalog';

const files: ToolSource = { kind: 'mcp', name: 'files' };

/** Grants as a pipeline stage: whatever door an agent uses, an ungranted tool is refused before policy, and again after a wait. */
function setup(granted: Set<string>, permissions: ToolPermission[] = []) {
  const catalog = new ToolCatalog();
  const executor = new FakeExecutor(() => ({ content: [{ type: 'text', text: 'ran' }] }));
  catalog.replaceSource(
    files,
    [
      createToolEntry({ source: files, tool: { name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }),
      createToolEntry({ source: files, tool: { name: 'write_file' } }),
    ],
    executor,
  );
  const recorder = new MemoryInvocationRecorder();
  const pipeline = new InvocationPipeline({ catalog, recorder, permissions: () => permissions, grants: (agent, entry) => granted.has(`${agent} ${entry.name}`) });
  return { pipeline, executor, recorder };
}

describe('InvocationPipeline: the grants stage', () => {
  it('refuses an agent’s call to a tool not granted to it, before validation and policy, whatever the door', async () => {
    const { pipeline, executor, recorder } = setup(new Set(['bot mcp:files.read_file']));
    for (const via of ['gateway', 'mediation', 'bus'] as const) {
      // Invalid arguments too: an agent learns nothing of a tool it may not call.
      const outcome = await pipeline.invoke({ caller: agentCaller('rogue', via), name: 'mcp:files.read_file', arguments: {} });
      expect(outcome.record.status).toBe('denied');
      expect(outcome.error?.code).toBe('PolicyDenied');
      expect(outcome.error?.message).toBe('Policy denies mcp:files.read_file: not granted to rogue.');
    }
    expect(executor.calls).toHaveLength(0);
    expect(recorder.list().map((record) => record.agent)).toEqual(['rogue', 'rogue', 'rogue']);
    expect((await pipeline.invoke({ caller: agentCaller('bot', 'bus'), name: 'mcp:files.read_file', arguments: { path: 'a' } })).record.status).toBe('ok');
  });

  it('never applies to the operator', async () => {
    const { pipeline } = setup(new Set());
    expect((await pipeline.invoke({ caller: operatorCaller('ui'), name: 'mcp:files.write_file' })).record.status).toBe('ok');
    expect((await pipeline.invoke({ caller: operatorCaller('playground'), name: 'mcp:files.write_file' })).record.status).toBe('ok');
  });

  it('judges the grant again when a held call’s decision arrives: a grant taken away meanwhile is refused on approval', async () => {
    const granted = new Set(['bot mcp:files.write_file']);
    const needsApproval: ToolPermission = { name: 'writes-wait', toolRef: 'mcp:files.write_file', operationRules: [{ operationClass: '*', verdict: 'confirm' }] };
    const { pipeline, executor } = setup(granted, [needsApproval]);
    const outcome = await pipeline.invoke({
      caller: agentCaller('bot', 'gateway'),
      name: 'mcp:files.write_file',
      approval: async () => {
        // While a person decides, the pod file loses the grant.
        granted.delete('bot mcp:files.write_file');
      },
    });
    expect(outcome.record.status).toBe('denied');
    expect(outcome.error?.message).toBe('Policy denies mcp:files.write_file: not granted to bot.');
    expect(executor.calls).toHaveLength(0);
  });
});
