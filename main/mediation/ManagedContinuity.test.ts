import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManagedContinuity } from './ManagedContinuity';

const text = (message: unknown) => {
  const m = message as { role?: string; content?: unknown };
  return m.role === 'assistant' && typeof m.content === 'string' ? m.content : undefined;
};
const hiddenFor = (answer: string) => [{ role: 'assistant', tool_calls: [{ id: answer }] }, { role: 'tool', content: `result for ${answer}` }];

describe('ManagedContinuity (hidden managed rounds put back into the runner’s next request)', () => {
  it('puts each turn’s hidden rounds right before the answer they led to, and nothing else changes', () => {
    const store = new ManagedContinuity();
    store.observe('a', 'first answer', hiddenFor('first answer'));
    store.observe('a', 'second answer', hiddenFor('second answer'));
    const runner = [
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'second answer' },
      { role: 'user', content: 'q3' },
    ];
    expect(store.inject('a', runner, text)).toEqual([runner[0], ...hiddenFor('first answer'), runner[1], runner[2], ...hiddenFor('second answer'), runner[3], runner[4]]);
    // Another agent's history gets nothing.
    expect(store.inject('b', runner, text)).toBeUndefined();
  });

  it('injects nothing when the runner edited or dropped the answer', () => {
    const store = new ManagedContinuity();
    store.observe('a', 'the answer', hiddenFor('the answer'));
    expect(store.inject('a', [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'an edited answer' }], text)).toBeUndefined();
  });

  it('stays bounded: at most maxTurns per agent and maxAgents agents, whatever is observed', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.string({ minLength: 1, maxLength: 5 })), { maxLength: 60 }), (observations) => {
        const store = new ManagedContinuity(3, 2);
        for (const [agent, answer] of observations) store.observe(agent, answer, hiddenFor(answer));
        expect(store.agentsKept()).toBeLessThanOrEqual(2);
        for (const agent of ['a', 'b', 'c', 'd', 'e']) {
          const history = observations.filter(([who]) => who === agent).flatMap(([, answer]) => [{ role: 'user', content: 'q' }, { role: 'assistant', content: answer }]);
          const injected = store.inject(agent, history, text) ?? history;
          expect((injected.length - history.length) / 2).toBeLessThanOrEqual(3);
        }
      }),
    );
  });
});
