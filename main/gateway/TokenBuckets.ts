/** Requests per second and burst an agent gets by default: ample for an agent, a wall for a flood. */
export const DEFAULT_RATE = { perSecond: 50, burst: 100 };

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * One token bucket per agent: each request takes a token, tokens come back at `perSecond` up to
 * `burst`. A request with no token left is refused with how long until one is back (`Retry-After`).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly rate: { perSecond: number; burst: number } = DEFAULT_RATE,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a token for `key`: undefined when granted, else the whole seconds to wait (at least 1). */
  take(key: string): number | undefined {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.rate.burst, at: now };
    bucket.tokens = Math.min(this.rate.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.rate.perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate.perSecond));
  }

  forget(key: string): void {
    this.buckets.delete(key);
  }
}
