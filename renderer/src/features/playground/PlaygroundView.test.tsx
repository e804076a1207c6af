import { describe, expect, it } from 'vitest';
import { playgroundToolSet } from './PlaygroundView';

describe('playgroundToolSet', () => {
  it('offers picked registry entries first, then a picked agent', () => {
    expect(playgroundToolSet({ agent: 'assistant', tools: ['mcp:everything.echo'] }, ['assistant'], undefined)).toEqual({ tools: ['mcp:everything.echo'], why: '1 picked registry entry' });
    expect(playgroundToolSet({ agent: 'reader', tools: [] }, ['assistant', 'reader'], undefined)).toEqual({ agent: 'reader', why: "reader's grants" });
  });

  it('with nothing picked, offers the first declared agent’s grants and says so', () => {
    const set = playgroundToolSet({ agent: null, tools: [] }, ['assistant', 'reader'], undefined);
    expect(set).toMatchObject({ agent: 'assistant' });
    expect('why' in set && set.why).toMatch(/^assistant's grants \(the first agent the workspace declares/);
  });

  it('without a declared agent, offers every tool the operator may call, at most 200, and names none when there is none', () => {
    const callable = Array.from({ length: 250 }, (_, i) => `mcp:big.tool_${i}`);
    const set = playgroundToolSet({ agent: null, tools: [] }, [], callable);
    expect('tools' in set && set.tools).toHaveLength(200);
    expect('why' in set && set.why).toBe('every tool you may call (200), since the workspace declares no agent');
    expect(playgroundToolSet({ agent: null, tools: [] }, [], [])).toEqual({ none: 'No tools to offer: the workspace declares no agent and no server is connected (Servers).' });
  });
});
