export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
  /** Fraction of each delay drawn at random, so many objects failing together do not retry in lockstep. */
  jitter?: number;
}

/** Delays that double per failure up to a cap; `reset()` after a success. */
export class ExponentialBackoff {
  private failures = 0;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly jitter: number;

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? 200;
    this.maxMs = options.maxMs ?? 60_000;
    this.jitter = options.jitter ?? 0.2;
  }

  get attempts(): number {
    return this.failures;
  }

  next(): number {
    const raw = Math.min(this.maxMs, this.baseMs * 2 ** this.failures);
    this.failures++;
    return Math.round(raw * (1 - this.jitter * Math.random()));
  }

  reset() {
    this.failures = 0;
  }
}
