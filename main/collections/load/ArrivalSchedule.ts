/**
 * When each arrival of an open-model load is due: a constant rate `rps`, reached by a linear climb
 * from 0 over the first `rampUpMs`. Arrival k (0-based) is due when the cumulative count the rate
 * asks for reaches k: N(t) = rps·t²/(2·ramp) during the ramp, then rps·ramp/2 + rps·(t − ramp).
 * Times are in ms from the start; the first arrival is due at 0.
 */
export class ArrivalSchedule {
  /** Arrivals due before the duration ends. */
  readonly total: number;
  private readonly perMs: number;
  private readonly rampArrivals: number;

  constructor(
    readonly rps: number,
    readonly durationMs: number,
    readonly rampUpMs = 0,
  ) {
    if (!(rps > 0) || !(durationMs > 0) || rampUpMs < 0 || rampUpMs >= durationMs) throw new RangeError('rps and duration must be positive and the ramp-up shorter than the duration');
    this.perMs = rps / 1000;
    this.rampArrivals = (this.perMs * rampUpMs) / 2;
    let total = Math.ceil(this.cumulative(durationMs));
    while (total > 0 && this.offset(total - 1) >= durationMs) total--;
    while (this.offset(total) < durationMs) total++;
    this.total = total;
  }

  /** Arrivals the rate asks for by `t` ms (not rounded). */
  cumulative(t: number): number {
    if (t <= 0) return 0;
    if (t <= this.rampUpMs) return (this.perMs * t * t) / (2 * this.rampUpMs);
    return this.rampArrivals + this.perMs * (t - this.rampUpMs);
  }

  /** When arrival `k` is due, ms from the start. */
  offset(k: number): number {
    if (k <= this.rampArrivals && this.rampUpMs > 0) return Math.sqrt((2 * k * this.rampUpMs) / this.perMs);
    return this.rampUpMs + (k - this.rampArrivals) / this.perMs;
  }

  /** How many arrivals are due at or before `t` ms (at most `total`). */
  dueBy(t: number): number {
    if (t < 0) return 0;
    let k = Math.min(this.total, Math.floor(this.cumulative(t)) + 1);
    // The closed forms round; step to the exact boundary of offset().
    while (k < this.total && this.offset(k) <= t) k++;
    while (k > 0 && this.offset(k - 1) > t) k--;
    return k;
  }
}
