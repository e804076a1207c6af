import { LONGEST_TIMER_MS, type Clock, type HoldableTimer } from './types';

/** Something due at a time (clock ms); `expire()` is called once, after that time has passed. */
export interface Deadline {
  dueAt: number;
  expire(): void;
}

/**
 * Every in-flight attempt's deadline on one timer, armed for the earliest. A call that ends only
 * leaves the set — no timer is made or cleared per call, which was a measurable part of a fast
 * call's cost (a Node timer, its list entry and the closures to arm and cancel it). When the
 * timer fires it expires what is due and re-arms for the next; a deadline that moved later (progress
 * restarting a timeout) is simply found not due yet.
 *
 * While nothing is watched the timer may stay armed, but then it does not keep the process alive
 * (a CLI call ends when its work does). Clocks that cannot release a timer that way (test clocks)
 * have it cancelled instead, so they show no timer left behind.
 */
export class DeadlineWatch {
  private readonly watched = new Set<Deadline>();
  private timer?: HoldableTimer;
  private timerDueAt = Infinity;

  constructor(private readonly clock: Clock) {}

  /** Watches `deadline`, or takes note that its `dueAt` changed. */
  watch(deadline: Deadline): void {
    if (this.watched.size === 0) this.timer?.hold(true);
    this.watched.add(deadline);
    if (deadline.dueAt < this.timerDueAt) this.arm(deadline.dueAt);
  }

  unwatch(deadline: Deadline): void {
    if (!this.watched.delete(deadline) || this.watched.size > 0) return;
    if (this.clock.holdableTimeout) this.timer?.hold(false);
    else this.disarm();
  }

  private arm(dueAt: number): void {
    this.disarm();
    this.timerDueAt = dueAt;
    const ms = Math.max(0, Math.min(dueAt - this.clock.now(), LONGEST_TIMER_MS));
    this.timer = this.clock.holdableTimeout?.(this.fire, ms) ?? { cancel: this.clock.setTimeout(this.fire, ms), hold() {} };
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerDueAt = Infinity;
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    const now = this.clock.now();
    const due: Deadline[] = [];
    let next = Infinity;
    for (const deadline of this.watched) {
      if (deadline.dueAt <= now) due.push(deadline);
      else if (deadline.dueAt < next) next = deadline.dueAt;
    }
    for (const deadline of due) this.watched.delete(deadline);
    if (next < Infinity) this.arm(next);
    for (const deadline of due) deadline.expire();
  };
}
