/**
 * Abort controllers for attempts, reused once an executor has let go of one unaborted.
 *
 * Why: an AbortSignal is costly to make in Node (an EventTarget built and then re-prototyped): one
 * per call measured 5–6 µs beside a ~33 µs no-op MCP call, the largest single cost the pipeline
 * added to it. A controller comes back here only when its executor said it no longer holds the
 * signal (ExecutionContext.releaseSignal: no listener left on it, no later use) and it was never
 * aborted, so no one can see a later call's abort through it.
 */
export class ReusableSignals {
  private readonly idle: AbortController[] = [];

  /** At most this many idle controllers are kept (one per call that was in flight at once). */
  constructor(private readonly maxIdle = 64) {}

  take(): AbortController {
    return this.idle.pop() ?? new AbortController();
  }

  /** Only for a controller whose signal nobody holds any more. */
  give(controller: AbortController): void {
    if (!controller.signal.aborted && this.idle.length < this.maxIdle) this.idle.push(controller);
  }
}
