import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentListItem, AgentView } from '../../../shared/agents';
import { runTooldeck } from '../testing/runTooldeck';

/**
 * `tooldeck agents` on the seeded example workspace, its own server-everything connected: one
 * answer to "what may assistant do, and why?", each tool with every place that grants it.
 */
describe('tooldeck agents', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-agents-cli-'));

  it('shows each granted tool with where it is granted and the verdict for the agent, in Orloj’s words', async () => {
    const shown = await runTooldeck(dataDir, ['agents', 'show', 'assistant', '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const view = JSON.parse(shown.stdout) as AgentView;
    const tool = (name: string) => view.tools.find((item) => item.name === `mcp:everything.${name}`);
    // The pod file grants echo (its tools-defaults, through `...`), get-sum and get-tiny-image; the LanguageAgent all of everything.
    expect(tool('get-sum')?.grantedBy.map((origin) => [origin.kind, origin.file])).toEqual([
      ['ClawPod', 'agents.claw-pod.yml'],
      ['LanguageAgent', 'agent.yaml'],
    ]);
    expect(tool('echo')?.grantedBy[0]).toEqual({ kind: 'ClawPod', file: 'agents.claw-pod.yml', rule: 'services.assistant.x-claw.tools: mcp:everything allow [echo, get-sum, get-tiny-image]' });
    expect(tool('get-tiny-image')).toMatchObject({ verdict: 'approval_required' });
    expect(tool('get-sum')).toMatchObject({ verdict: 'allow' });
    const onlyByLanguageAgent = view.tools.filter((item) => item.grantedBy.every((origin) => origin.kind === 'LanguageAgent'));
    expect(onlyByLanguageAgent.length).toBeGreaterThan(0);
    for (const item of view.tools) expect(item.grantedBy.length).toBeGreaterThan(0);
    expect(view.models).toEqual([]);
  });

  it('grants models (deny by default), lists agents, and names an unknown agent in one sentence with exit 2', async () => {
    const granted = await runTooldeck(dataDir, ['agents', 'models', 'assistant', 'mock/*']);
    expect([granted.code, granted.stdout]).toEqual([0, 'Agent assistant may use mock/*.\n']);
    const listed = await runTooldeck(dataDir, ['agents', 'list', '--json']);
    const assistant = (JSON.parse(listed.stdout) as AgentListItem[]).find((agent) => agent.name === 'assistant');
    expect(assistant).toMatchObject({ models: ['mock/*'] });
    expect(assistant!.toolCount).toBeGreaterThan(3);
    const none = await runTooldeck(dataDir, ['agents', 'models', 'assistant']);
    expect(none.stdout).toBe('Agent assistant may use no model.\n');
    const unknown = await runTooldeck(dataDir, ['agents', 'show', 'nobody']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/No agent named nobody: it holds no credential and no pod file, ToolPermission or LanguageAgent grants it anything/);
    const badPattern = await runTooldeck(dataDir, ['agents', 'models', 'assistant', 'mock/$(rm)']);
    expect(badPattern.code).toBe(2);
  });
});
