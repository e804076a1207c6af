import { setMaxListeners } from 'node:events';
import { AsyncQueue } from './AsyncQueue';

/** What a run's work gets: the signal that stops it and where its events go. */
export interface RunScope<Event> {
  /** Aborts when the run is cancelled, the caller's signal aborts, or the reader stops reading. */
  readonly signal: AbortSignal;
  emit(event: Event): void;
}

/**
 * Work in progress that reports as it goes: its events as an async iterable (for a live view),
 * its final result, and a way to stop it.
 */
export interface CancellableRun<Event, Result> extends AsyncIterable<Event> {
  /** Settles when the work ends, whether or not anyone reads the events. */
  readonly result: Promise<Result>;
  /** Aborts the work's signal (idempotent). */
  cancel(): void;
}

export interface CancellableRunOptions {
  /** The caller's signal: aborting it cancels the run. */
  signal?: AbortSignal;
  /** Events kept for a reader that falls behind (the oldest are dropped beyond it). */
  capacity?: number;
  /** The work hands the signal to many calls at once (each adds its own listener): no leak warning. */
  manyListeners?: boolean;
  /**
   * A reader that stops early waits for the cancelled work to settle (so what it records is written
   * when the reader goes on); otherwise stopping returns at once.
   */
  settleOnStop?: boolean;
}

/**
 * Starts `work` now (synchronously up to its first await) and returns it as a CancellableRun. The
 * one shape of "a cancellable run as an async iterable" (collection runs, load runs, a streaming
 * call):
 *
 * - events go through a bounded AsyncQueue that closes when the work settles, so a reader sees
 *   every event queued before the end and then the iteration ends;
 * - a run whose work failed ends its events with that error rather than silently;
 * - a reader that stops iterating (`break`, `return()`) cancels the run (and with `settleOnStop`
 *   waits for it to settle).
 */
export function startCancellableRun<Event, Result>(work: (scope: RunScope<Event>) => Promise<Result>, options: CancellableRunOptions = {}): CancellableRun<Event, Result> {
  const { signal } = options;
  const controller = new AbortController();
  if (options.manyListeners) setMaxListeners(0, controller.signal);
  const cancel = () => controller.abort();
  if (signal?.aborted) cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  const events = new AsyncQueue<Event>(options.capacity);
  let working: Promise<Result>;
  try {
    working = work({ signal: controller.signal, emit: (event) => events.push(event) });
  } catch (error) {
    working = Promise.reject(error);
  }
  const result = working.finally(() => {
    signal?.removeEventListener('abort', cancel);
    events.close();
  });
  // Nobody has to await the result: a failure reaches readers of `result` or of the events.
  result.catch(() => undefined);
  return {
    result,
    cancel,
    [Symbol.asyncIterator]() {
      return {
        async next() {
          const next = await events.next();
          if (next.done) await result;
          return next;
        },
        async return() {
          cancel();
          const ended = await events.return();
          if (options.settleOnStop) await result.catch(() => undefined);
          return ended;
        },
      };
    },
  };
}
