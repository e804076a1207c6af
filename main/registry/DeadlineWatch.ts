import { LONGEST_TIMER_MS, type Clock, type HoldableTimer } from '../platform/Clock';

/** Something due at a time (clock ms); `expire()` is called once, after that time has passed. */
export interface Deadline {
  dueAt: number;
  expire(): void;
  /** The watch's own bookkeeping (where the deadline sits in its list; -1 when not watched). */
  watchIndex?: number;
}

/**
 * Every in-flight attempt's deadline on one timer, armed for the earliest. A call that ends only
 * leaves the set — no timer is made or cleared per call, which was a measurable part of a fast
 * call's cost (a Node timer, its list entry and the closures to arm and cancel it). When the
 * timer fires it expires what is due and re-arms for the next; a deadline that moved later (progress
 * restarting a timeout) is simply found not due yet.
 *
 * The watched deadlines sit in an array, each knowing its place, so watching and unwatching one
 * allocates nothing (a Set reallocated its table as it went between empty and one entry, per call).
 *
 * While nothing is watched the timer may stay armed, but then it does not keep the process alive
 * (a CLI call ends when its work does). Clocks that cannot release a timer that way (test clocks)
 * have it cancelled instead, so they show no timer left behind.
 */
export class DeadlineWatch {
  private readonly watched: Deadline[] = [];
  private timer?: HoldableTimer;
  private timerDueAt = Infinity;

  constructor(private readonly clock: Clock) {}

  /** Watches `deadline`, or takes note that its `dueAt` changed. */
  watch(deadline: Deadline): void {
    if (!this.isWatched(deadline)) {
      if (this.watched.length === 0) this.timer?.hold(true);
      deadline.watchIndex = this.watched.length;
      this.watched.push(deadline);
    }
    if (deadline.dueAt < this.timerDueAt) this.arm(deadline.dueAt);
  }

  unwatch(deadline: Deadline): void {
    if (!this.isWatched(deadline)) return;
    this.remove(deadline);
    if (this.watched.length > 0) return;
    if (this.clock.holdableTimeout) this.timer?.hold(false);
    else this.disarm();
  }

  private isWatched(deadline: Deadline): boolean {
    const index = deadline.watchIndex ?? -1;
    return index >= 0 && this.watched[index] === deadline;
  }

  /** Takes a watched deadline out; the last one moves into its place. */
  private remove(deadline: Deadline): void {
    const index = deadline.watchIndex!;
    const last = this.watched.pop()!;
    if (last !== deadline) {
      this.watched[index] = last;
      last.watchIndex = index;
    }
    deadline.watchIndex = -1;
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
    for (const deadline of due) this.remove(deadline);
    if (next < Infinity) this.arm(next);
    for (const deadline of due) deadline.expire();
  };
}
