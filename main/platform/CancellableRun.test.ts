import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startCancellableRun } from './CancellableRun';

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** Work that emits `started`, then waits until its signal aborts or it is released. */
function waitingWork() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let seenSignal!: AbortSignal;
  const work = async ({ signal, emit }: { signal: AbortSignal; emit: (event: string) => void }) => {
    seenSignal = signal;
    emit('started');
    if (!signal.aborted) await Promise.race([released, new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))]);
    emit(signal.aborted ? 'stopped' : 'finished');
    return signal.aborted ? 'canceled' : 'done';
  };
  return { work, release: () => release(), signal: () => seenSignal };
}

describe('startCancellableRun', () => {
  it('yields every event the work emits, ends when it settles, and settles the result whether read or not', async () => {
    const { work, release } = waitingWork();
    const run = startCancellableRun(work);
    release();
    expect(await run.result).toBe('done');
    // Read after the end: the queued events are still there.
    expect(await collect(run)).toEqual(['started', 'finished']);
  });

  it('ends the events with the work’s error rather than silently', async () => {
    const run = startCancellableRun<string, never>(async ({ emit }) => {
      emit('one');
      throw new Error('the run broke');
    });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of run) seen.push(event);
      })(),
    ).rejects.toThrow('the run broke');
    expect(seen).toEqual(['one']);
    await expect(run.result).rejects.toThrow('the run broke');

    const throwsAtOnce = startCancellableRun<string, never>(() => {
      throw new Error('could not start');
    });
    await expect(throwsAtOnce.result).rejects.toThrow('could not start');
  });

  it('is cancelled by cancel(), by the caller’s signal (even one already aborted), and by a reader that stops', async () => {
    const byCancel = waitingWork();
    const run = startCancellableRun(byCancel.work);
    run.cancel();
    run.cancel();
    expect(await run.result).toBe('canceled');

    const caller = new AbortController();
    const bySignal = waitingWork();
    const signalled = startCancellableRun(bySignal.work, { signal: caller.signal });
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    caller.abort();
    expect(await signalled.result).toBe('canceled');
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);

    const already = waitingWork();
    expect(await startCancellableRun(already.work, { signal: AbortSignal.abort() }).result).toBe('canceled');

    const byReader = waitingWork();
    const read = startCancellableRun(byReader.work);
    for await (const event of read) {
      expect(event).toBe('started');
      break;
    }
    expect(byReader.signal().aborted).toBe(true);
    expect(await read.result).toBe('canceled');
  });

  it('releases the caller’s signal when the work ends by itself', async () => {
    const caller = new AbortController();
    const { work, release, signal } = waitingWork();
    const run = startCancellableRun(work, { signal: caller.signal, manyListeners: true });
    release();
    await run.result;
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(signal().aborted).toBe(false);
  });
});

describe('startCancellableRun with settleOnStop', () => {
  it('makes a reader that stops early wait until the cancelled work has settled', async () => {
    let settled = false;
    const run = startCancellableRun<string, void>(
      async ({ signal, emit }) => {
        emit('started');
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        // What the work does after the cancel (writing its record) is done before the reader goes on.
        await Promise.resolve();
        settled = true;
      },
      { settleOnStop: true },
    );
    for await (const _ of run) break;
    expect(settled).toBe(true);
  });
});
