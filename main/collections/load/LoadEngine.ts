import type { Histogram } from 'hdr-histogram-js';
import type { LoadTick } from '../../../shared/loadRuns';
import type { Clock } from '../../platform/Clock';
import type { ArrivalSchedule } from './ArrivalSchedule';
import { addCounts, latencyHistogram, LoadStats, maxMs, percentileMs, type CodeCounts } from './LoadStats';

/** Sends arrival `k` (request `request` of the collection); resolves with an error code when the call did not pass. Never rejects. */
export type SendArrival = (arrival: number, request: number) => Promise<string | undefined>;

/** The code a call ends with when the run was stopped under it; such calls are not measured. */
export const STOPPED_CODE = 'Canceled';

/**
 * One stream of open-model load (a target, or one replica of it): arrival k is due at
 * `schedule.offset(k)`; at most `concurrency` calls are in flight, and an arrival that finds them
 * all busy waits for the next free slot. Latency runs from the intended send time, so waiting
 * (on the tool or on a slot) is measured rather than hidden.
 */
export class LoadStream {
  readonly stats: LoadStats;
  /** Arrivals not sent: the duration ended or the run was stopped while they waited. */
  dropped = 0;
  private next = 0;
  private inFlight = 0;
  private t0 = 0;
  private closed = false;
  private stopped = false;
  private wake?: () => void;
  private resolveDone!: () => void;
  readonly done = new Promise<void>((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly schedule: ArrivalSchedule,
    private readonly concurrency: number,
    private readonly clock: Clock,
    private readonly requestCount: number,
    private readonly send: SendArrival,
    readonly label = '',
  ) {
    this.stats = new LoadStats(requestCount);
  }

  start(t0: number): void {
    this.t0 = t0;
    this.pump();
  }

  get callsInFlight(): number {
    return this.inFlight;
  }

  /** Arrivals more than a millisecond past due and not yet sent (all slots were busy). */
  waiting(now: number): number {
    return this.closed ? 0 : Math.max(0, this.schedule.dueBy(now - this.t0 - 1) - this.next);
  }

  /** The duration is over (or the run stopped): whatever still waits is dropped; calls in flight finish. */
  close(stopped = false): void {
    if (this.closed) return;
    this.closed = true;
    this.stopped = stopped;
    this.wake?.();
    this.wake = undefined;
    this.dropped = this.schedule.total - this.next;
    this.next = this.schedule.total;
    if (this.inFlight === 0) this.resolveDone();
  }

  private pump(): void {
    if (this.closed) return;
    const elapsed = this.clock.now() - this.t0;
    // A timer cannot wait less than a millisecond: what is due within one goes now.
    const due = this.schedule.dueBy(elapsed + 1);
    while (this.next < due && this.inFlight < this.concurrency) this.fire(this.next++);
    if (this.next >= this.schedule.total) {
      if (this.inFlight === 0) this.close();
      return;
    }
    if (this.wake || this.next < due) return; // Due ones wait for a slot; a completion pumps again.
    const delay = this.schedule.offset(this.next) - elapsed;
    this.wake = this.clock.setTimeout(() => {
      this.wake = undefined;
      this.pump();
    }, Math.max(1, Math.floor(delay)));
  }

  private fire(k: number): void {
    const request = k % this.requestCount;
    const intended = this.t0 + this.schedule.offset(k);
    const sentAt = this.clock.now();
    this.inFlight++;
    this.stats.noteSent();
    this.send(k, request).then(
      (code) => this.complete(request, intended, sentAt, code),
      () => this.complete(request, intended, sentAt, 'Internal'),
    );
  }

  private complete(request: number, intended: number, sentAt: number, code: string | undefined): void {
    const now = this.clock.now();
    this.inFlight--;
    if (!(this.stopped && code === STOPPED_CODE)) {
      const elapsed = now - this.t0;
      const steady = elapsed >= this.schedule.rampUpMs && elapsed <= this.schedule.durationMs;
      // Sent up to 1 ms early (timer granularity): then the latency runs from the actual send.
      this.stats.noteCompleted(request, now - Math.min(intended, sentAt), now - sentAt, code, steady);
    }
    if (!this.closed) this.pump();
    else if (this.inFlight === 0) this.resolveDone();
  }
}

export interface LoadSessionOptions {
  schedule: ArrivalSchedule;
  clock: Clock;
  /** Epoch ms of the clock's "now" at start, for the ticks' timestamps. */
  epochNow?: () => number;
  onTick?: (tick: LoadTick) => void;
}

/**
 * Runs streams side by side on one schedule and one clock: starts them together, emits a tick
 * every second (counters and percentiles of that second, summed over the streams), closes them
 * when the duration ends, and settles once every call in flight has finished.
 */
export class LoadSession {
  readonly ticks: LoadTick[] = [];
  private t0 = 0;
  private startedAtEpoch = 0;
  private second = 0;
  private tickTimer?: () => void;
  private endTimer?: () => void;
  private readonly scratch: Histogram = latencyHistogram();
  private finishedAt?: number;

  constructor(
    readonly streams: readonly LoadStream[],
    private readonly options: LoadSessionOptions,
  ) {}

  get startedAt(): number {
    return this.startedAtEpoch;
  }

  /** Clock ms from the start to the last answer (or to now while running). */
  get elapsedMs(): number {
    return (this.finishedAt ?? this.options.clock.now()) - this.t0;
  }

  async run(): Promise<void> {
    const { clock, schedule } = this.options;
    this.t0 = clock.now();
    this.startedAtEpoch = (this.options.epochNow ?? Date.now)();
    this.armTick();
    this.endTimer = clock.setTimeout(() => this.close(false), schedule.durationMs);
    for (const stream of this.streams) stream.start(this.t0);
    await Promise.all(this.streams.map((s) => s.done));
    this.finishedAt = clock.now();
    this.endTimer?.();
    this.tickTimer?.();
    this.tickTimer = undefined;
    // The last, partial second still counts if anything happened in it.
    const last = this.collectTick(this.finishedAt);
    if (last.sent || last.completed || last.errors) this.pushTick(last);
  }

  /** Stops sending; calls in flight are left to the caller to cancel. */
  stop(): void {
    this.close(true);
  }

  private close(stopped: boolean) {
    this.endTimer?.();
    this.endTimer = undefined;
    for (const stream of this.streams) stream.close(stopped);
  }

  private armTick() {
    const { clock } = this.options;
    const nextAt = this.t0 + (this.second + 1) * 1000;
    this.tickTimer = clock.setTimeout(() => {
      this.pushTick(this.collectTick(clock.now()));
      this.armTick();
    }, Math.max(1, nextAt - clock.now()));
  }

  private collectTick(now: number): LoadTick {
    const { schedule } = this.options;
    this.second++;
    this.scratch.reset();
    let sent = 0;
    let completed = 0;
    let errors = 0;
    const errorsByCode: CodeCounts = {};
    let inFlight = 0;
    let waiting = 0;
    for (const stream of this.streams) {
      const taken = stream.stats.takeInterval(this.scratch);
      sent += taken.sent;
      completed += taken.completed;
      errors += taken.errors;
      addCounts(errorsByCode, taken.errorsByCode);
      inFlight += stream.callsInFlight;
      waiting += stream.waiting(now);
    }
    const from = Math.min(schedule.durationMs, (this.second - 1) * 1000);
    const to = Math.min(schedule.durationMs, this.second * 1000);
    const asked = (schedule.dueBy(to - 1e-9) - schedule.dueBy(from - 1e-9)) * this.streams.length;
    return {
      second: this.second,
      at: this.startedAtEpoch + (now - this.t0),
      asked,
      sent,
      completed,
      errors,
      errorsByCode,
      p50: percentileMs(this.scratch, 50),
      p95: percentileMs(this.scratch, 95),
      p99: percentileMs(this.scratch, 99),
      max: maxMs(this.scratch),
      inFlight,
      waiting,
    };
  }

  private pushTick(tick: LoadTick) {
    this.ticks.push(tick);
    this.options.onTick?.(tick);
  }
}
