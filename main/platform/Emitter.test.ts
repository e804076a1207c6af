import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Emitter } from './Emitter';

describe('Emitter', () => {
  it('tells every listener each value, in registration order, until it unsubscribes', () => {
    const emitter = new Emitter<number>();
    const heard: string[] = [];
    const stopA = emitter.on((n) => heard.push(`a${n}`));
    emitter.on((n) => heard.push(`b${n}`));
    expect(emitter.size).toBe(2);
    emitter.emit(1);
    stopA();
    stopA();
    emitter.emit(2);
    expect(heard).toEqual(['a1', 'b1', 'b2']);
    expect(emitter.size).toBe(1);
    emitter.clear();
    emitter.emit(3);
    expect(heard).toEqual(['a1', 'b1', 'b2']);
    expect(emitter.size).toBe(0);
  });

  it('keeps telling the others, and never throws to the emitter, when a listener throws', () => {
    const errors: unknown[] = [];
    const emitter = new Emitter((error) => errors.push(error));
    let heard = 0;
    emitter.on(() => {
      throw new Error('listener broke');
    });
    emitter.on(() => heard++);
    expect(() => emitter.emit()).not.toThrow();
    expect(heard).toBe(1);
    expect(errors).toEqual([new Error('listener broke')]);

    const withBrokenHandler = new Emitter(() => {
      throw new Error('handler broke too');
    });
    withBrokenHandler.on(() => {
      throw new Error('listener broke');
    });
    withBrokenHandler.on(() => heard++);
    expect(() => withBrokenHandler.emit()).not.toThrow();
    expect(heard).toBe(2);
  });

  it('counts a function added twice as two registrations, each removed by its own unsubscribe', () => {
    const emitter = new Emitter();
    let heard = 0;
    const listener = () => heard++;
    const first = emitter.on(listener);
    emitter.on(listener);
    emitter.emit();
    expect(heard).toBe(2);
    first();
    emitter.emit();
    expect(heard).toBe(3);
  });

  /**
   * Random scripts of listeners that, when told, unsubscribe one of the registrations, subscribe a
   * new listener, clear all, throw, or emit again (to a bounded depth). Whatever the script, each
   * emit reaches exactly the registrations made before it started and not removed before their
   * turn, once each, in registration order, and nothing thrown reaches the emitter's owner.
   */
  it('keeps its promise under unsubscribes, subscribes, clears, throws and re-entrant emits during an emit', () => {
    type Action = { kind: 'none' | 'subscribe' | 'clear' | 'throw' | 'emit' } | { kind: 'unsubscribe'; target: number };
    const action: fc.Arbitrary<Action> = fc.oneof(
      fc.constantFrom<Action>({ kind: 'none' }, { kind: 'subscribe' }, { kind: 'clear' }, { kind: 'throw' }, { kind: 'emit' }),
      fc.nat(15).map((target): Action => ({ kind: 'unsubscribe', target })),
    );
    fc.assert(
      fc.property(fc.array(action, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 }), (actions, initial, emits) => {
        const emitter = new Emitter<number>(() => undefined);
        let step = 0;
        const registrations: { subscribedAt: number; removedAt?: number; stop: () => void }[] = [];
        const emitsSeen: { startedAt: number; endedAt?: number; calls: { id: number; at: number }[] }[] = [];
        const removeAll = () => registrations.forEach((r) => (r.removedAt ??= step));

        const subscribe = () => {
          const id = registrations.length;
          const stop = emitter.on((emitIndex) => {
            emitsSeen[emitIndex]!.calls.push({ id, at: step++ });
            const act = actions[id % actions.length]!;
            if (act.kind === 'unsubscribe') {
              const target = registrations[act.target % registrations.length]!;
              target.removedAt ??= step++;
              target.stop();
            } else if (act.kind === 'subscribe' && registrations.length < 24) subscribe();
            else if (act.kind === 'clear') {
              removeAll();
              step++;
              emitter.clear();
            } else if (act.kind === 'throw') throw new Error('listener broke');
            else if (act.kind === 'emit' && emitsSeen.length < 12) emit();
          });
          registrations.push({ subscribedAt: step++, stop });
        };
        const emit = () => {
          const index = emitsSeen.length;
          emitsSeen.push({ startedAt: step++, calls: [] });
          emitter.emit(index);
          emitsSeen[index]!.endedAt = step++;
        };

        for (let i = 0; i < initial; i++) subscribe();
        for (let i = 0; i < emits; i++) expect(() => emit()).not.toThrow();

        for (const seen of emitsSeen) {
          const called = seen.calls.map((c) => c.id);
          expect(called).toEqual([...new Set(called)].sort((a, b) => a - b));
          registrations.forEach((r, id) => {
            const call = seen.calls.find((c) => c.id === id);
            const registeredAtStart = r.subscribedAt < seen.startedAt && (r.removedAt === undefined || r.removedAt > seen.startedAt);
            if (call) {
              expect(registeredAtStart).toBe(true);
              expect(r.removedAt === undefined || r.removedAt > call.at).toBe(true);
            } else if (registeredAtStart) {
              // Skipped only because it was removed during this emit.
              expect(r.removedAt).toBeLessThan(seen.endedAt!);
            }
          });
        }
        expect(emitter.size).toBe(registrations.filter((r) => r.removedAt === undefined).length);
      }),
    );
  });
});
