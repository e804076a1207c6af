import { describe, expect, it } from 'vitest';
import { setCondition } from './conditions';

describe('setCondition', () => {
  const at = (iso: string) => () => new Date(iso);

  it('keeps lastTransitionTime while the status stays, and moves it when the status changes', () => {
    let conditions = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'Waiting', message: '0/1', observedGeneration: 1 }, at('2026-01-01T00:00:00.500Z'));
    expect(conditions[0]!.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    conditions = setCondition(conditions, { type: 'Ready', status: 'False', reason: 'Waiting', message: '0/2', observedGeneration: 2 }, at('2026-01-01T00:05:00Z'));
    expect(conditions).toEqual([{ type: 'Ready', status: 'False', reason: 'Waiting', message: '0/2', observedGeneration: 2, lastTransitionTime: '2026-01-01T00:00:00Z' }]);
    conditions = setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Available', message: '1/1', observedGeneration: 2 }, at('2026-01-01T00:06:00Z'));
    expect(conditions[0]!.lastTransitionTime).toBe('2026-01-01T00:06:00Z');
  });

  it('adds a new type beside the existing ones', () => {
    const ready = setCondition(undefined, { type: 'Ready', status: 'True', reason: 'Available', message: '' }, at('2026-01-01T00:00:00Z'));
    const both = setCondition(ready, { type: 'Discovered', status: 'True', reason: 'ToolsListed', message: '3 tools' }, at('2026-01-01T00:01:00Z'));
    expect(both.map((c) => c.type)).toEqual(['Ready', 'Discovered']);
  });
});
