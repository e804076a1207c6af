import type { Logger } from '../../platform/Logger';
import { isConflict } from '../KubeApiError';
import { sleep, systemClock, type Clock } from '../../platform/Clock';
import { microTime, type LeaseLock, type LeaseObject, type LeaseSpec } from './LeaseLock';

export interface LeaderElectionTimings {
  /** How long a follower waits, from the last change it observed, before it may take the lease over. */
  leaseDurationMs: number;
  /** How long the leader keeps retrying a failing renewal before it gives up leading. */
  renewDeadlineMs: number;
  /** Between attempts to acquire or renew. */
  retryPeriodMs: number;
}

/** client-go's defaults (and those of every controller built on it). */
export const DEFAULT_LEADER_ELECTION: LeaderElectionTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** client-go's JitterFactor: a candidate waits retryPeriod × [1, 1 + 1.2) between attempts. */
export const JITTER_FACTOR = 1.2;

export interface LeaderElectorOptions extends Partial<LeaderElectionTimings> {
  lock: LeaseLock;
  /** Who campaigns: the pod name in a cluster. */
  identity: string;
  logger: Logger;
  clock?: Clock;
  /** In [0, 1): the jitter of a candidate's waits. */
  random?: () => number;
  /** Put on the Lease when this elector creates it (so the console can find operator Leases). */
  labels?: Record<string, string>;
  /** Written with every acquire and renewal: what the holder wants a reader of the Lease to know. */
  annotations?: () => Record<string, string>;
  onStartedLeading?: () => void;
  onStoppedLeading?: (end: ElectionEnd) => void;
  /** The holder this elector observed changed (undefined: nobody holds the lease). */
  onNewLeader?: (identity: string | undefined) => void;
}

/** How a campaign ended: stopped before it led, released on stop, or lost (renewals failed or another holder appeared). */
export type ElectionEnd = 'stopped' | 'released' | 'lost';

export interface LeaderElectionStatus {
  identity: string;
  leading: boolean;
  /** The holder last observed on the Lease. */
  leader?: string;
  /** Successful renewals since this elector last acquired the lease. */
  renewals: number;
  acquiredAt?: number;
  lastRenewedAt?: number;
  transitions: number;
}

interface Observation {
  lease: LeaseObject;
  /** Local time the record was first seen in this form: expiry is judged on this clock, never on the holder's (clocks skew). */
  at: number;
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease with client-go's semantics: a candidate tries
 * every retryPeriod (jittered) and takes the lease when it is free, released (empty holder) or
 * unchanged for leaseDuration as measured on its own clock; the leader renews every retryPeriod and
 * stops leading when no renewal succeeded within renewDeadline; every write carries the
 * resourceVersion it read, so two candidates never both win (the loser gets a 409). On stop the
 * leader releases the lease (empty holder, duration 1 s) so a follower takes over at once.
 *
 * Two refinements over client-go, neither weakening it: a leader that observes another holder on
 * the Lease stops at once instead of retrying until its deadline, and a follower that is told of a
 * Lease change (`observe`, fed by a watch) re-evaluates at once and schedules its next attempt for
 * the moment the observed lease expires, so failover takes leaseDuration plus one request rather
 * than up to leaseDuration + 2.2 × retryPeriod.
 */
export class LeaderElector {
  private readonly timings: LeaderElectionTimings;
  private readonly clock: Clock;
  private readonly random: () => number;
  private observed?: Observation;
  private leading = false;
  private renewals = 0;
  private acquiredAt?: number;
  private lastRenewedAt?: number;
  private lastHolder?: string;
  private stopper = new AbortController();
  private waker = new AbortController();
  private running?: Promise<ElectionEnd>;

  constructor(private readonly options: LeaderElectorOptions) {
    this.timings = {
      leaseDurationMs: options.leaseDurationMs ?? DEFAULT_LEADER_ELECTION.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs ?? DEFAULT_LEADER_ELECTION.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs ?? DEFAULT_LEADER_ELECTION.retryPeriodMs,
    };
    validateTimings(this.timings);
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  status(): LeaderElectionStatus {
    const holder = this.observed?.lease.spec.holderIdentity || undefined;
    return {
      identity: this.options.identity,
      leading: this.leading,
      ...(holder ? { leader: holder } : {}),
      renewals: this.renewals,
      ...(this.acquiredAt !== undefined ? { acquiredAt: this.acquiredAt } : {}),
      ...(this.lastRenewedAt !== undefined ? { lastRenewedAt: this.lastRenewedAt } : {}),
      transitions: this.observed?.lease.spec.leaseTransitions ?? 0,
    };
  }

  /** Campaigns until the lease is lost or `stop()` is called; resolves with how it ended. */
  run(): Promise<ElectionEnd> {
    this.running ??= this.campaign();
    return this.running;
  }

  /** Stops campaigning; a leader releases the lease first. Resolves once run() has ended. */
  async stop(): Promise<ElectionEnd> {
    this.stopper.abort();
    return this.running ?? 'stopped';
  }

  /** A Lease seen elsewhere (a watch): a follower re-evaluates at once. Ignored while leading, where a late event could be older than the last renewal. */
  observe(lease: LeaseObject) {
    if (this.leading || lease.metadata.name !== this.options.lock.name || lease.metadata.namespace !== this.options.lock.namespace) return;
    if (lease.metadata.resourceVersion && lease.metadata.resourceVersion === this.observed?.lease.metadata.resourceVersion) return;
    this.record(lease, this.clock.now());
    this.wake();
  }

  // ---- the campaign --------------------------------------------------------------------------

  private async campaign(): Promise<ElectionEnd> {
    if (!(await this.acquire())) return 'stopped';
    this.leading = true;
    this.renewals = 0;
    this.acquiredAt = this.clock.now();
    this.lastRenewedAt = this.acquiredAt;
    this.options.logger.info('acquired the lease', { lease: this.describe(), identity: this.options.identity });
    this.options.onStartedLeading?.();
    const end = await this.renewUntilLostOrStopped();
    this.leading = false;
    if (end === 'released') await this.release();
    this.options.onStoppedLeading?.(end);
    return end;
  }

  private async acquire(): Promise<boolean> {
    for (;;) {
      if (this.stopper.signal.aborted) return false;
      const outcome = await this.tryAcquireOrRenew(this.timings.renewDeadlineMs);
      if (outcome === 'ok') return true;
      let delay = this.candidateDelay(outcome);
      for (;;) {
        const woken = await this.sleep(delay);
        if (this.stopper.signal.aborted) return false;
        // Woken by an observed change: try at once if the lease is free now, else wait for its new expiry.
        if (!woken || !this.heldByOther(this.clock.now())) break;
        delay = this.candidateDelay('heldByOther');
      }
    }
  }

  /** client-go's renew loop: a round every retryPeriod, each retrying until renewDeadline. */
  private async renewUntilLostOrStopped(): Promise<'released' | 'lost'> {
    for (;;) {
      await this.sleep(this.timings.retryPeriodMs);
      if (this.stopper.signal.aborted) return 'released';
      const deadline = this.clock.now() + this.timings.renewDeadlineMs;
      for (;;) {
        const outcome = await this.tryAcquireOrRenew(Math.max(1, deadline - this.clock.now()));
        if (outcome === 'ok') {
          this.renewals++;
          this.lastRenewedAt = this.clock.now();
          break;
        }
        if (outcome === 'heldByOther') {
          this.options.logger.error('another holder took the lease', { lease: this.describe(), holder: this.observed?.lease.spec.holderIdentity });
          return 'lost';
        }
        if (this.stopper.signal.aborted) return 'released';
        const left = deadline - this.clock.now();
        if (left <= 0) {
          this.options.logger.error('no renewal succeeded within the renew deadline', { lease: this.describe(), renewDeadlineMs: this.timings.renewDeadlineMs });
          return 'lost';
        }
        await this.sleep(Math.min(this.timings.retryPeriodMs, left));
      }
    }
  }

  /** One attempt; the outcome says whether waiting for expiry makes sense. */
  private async tryAcquireOrRenew(timeoutMs: number): Promise<'ok' | 'heldByOther' | 'failed'> {
    const { lock, identity } = this.options;
    // Fast path of a leader: update the Lease it last wrote; a 409 means someone wrote since, so read it.
    if (this.leading && this.observed && this.observed.lease.spec.holderIdentity === identity) {
      try {
        const updated = await lock.update(this.nextLease(this.observed.lease, this.clock.now()), timeoutMs);
        this.record(updated, this.clock.now());
        return 'ok';
      } catch (error) {
        this.options.logger.warn('optimistic lease renewal failed; reading the lease', { lease: this.describe(), error: (error as Error).message });
      }
    }
    let lease: LeaseObject | undefined;
    try {
      lease = await lock.get(timeoutMs);
    } catch (error) {
      this.options.logger.warn('cannot read the lease', { lease: this.describe(), error: (error as Error).message });
      return 'failed';
    }
    const now = this.clock.now();
    if (!lease) {
      try {
        const created = await lock.create(this.nextLease(undefined, now), timeoutMs);
        this.record(created, this.clock.now());
        return 'ok';
      } catch (error) {
        // 409: another candidate created it first; the next attempt reads theirs.
        if (!isConflict(error)) this.options.logger.warn('cannot create the lease', { lease: this.describe(), error: (error as Error).message });
        return 'failed';
      }
    }
    this.record(lease, now);
    if (this.heldByOther(now)) return 'heldByOther';
    try {
      const updated = await lock.update(this.nextLease(lease, now), timeoutMs);
      this.record(updated, this.clock.now());
      return 'ok';
    } catch (error) {
      if (!isConflict(error)) this.options.logger.warn('cannot update the lease', { lease: this.describe(), error: (error as Error).message });
      return 'failed';
    }
  }

  /** Another identity holds the lease and it has not expired by this elector's clock. */
  private heldByOther(now: number): boolean {
    const spec = this.observed?.lease.spec;
    if (!spec?.holderIdentity || spec.holderIdentity === this.options.identity) return false;
    return this.observed!.at + (spec.leaseDurationSeconds ?? 0) * 1_000 > now;
  }

  private candidateDelay(outcome: 'heldByOther' | 'failed'): number {
    const jittered = this.timings.retryPeriodMs * (1 + this.random() * JITTER_FACTOR);
    if (outcome !== 'heldByOther') return jittered;
    const spec = this.observed!.lease.spec;
    const expiresIn = this.observed!.at + (spec.leaseDurationSeconds ?? 0) * 1_000 - this.clock.now();
    return Math.max(1, Math.min(jittered, expiresIn + 1));
  }

  private nextLease(current: LeaseObject | undefined, now: number): LeaseObject {
    const spec = current?.spec ?? {};
    const mine = !!current && spec.holderIdentity === this.options.identity;
    const next: LeaseSpec = {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.ceil(this.timings.leaseDurationMs / 1_000),
      acquireTime: mine && spec.acquireTime ? spec.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: current ? (spec.leaseTransitions ?? 0) + (mine ? 0 : 1) : 0,
    };
    const annotations = { ...current?.metadata.annotations, ...this.options.annotations?.() };
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: this.options.lock.name,
        namespace: this.options.lock.namespace,
        ...(current?.metadata.resourceVersion ? { resourceVersion: current.metadata.resourceVersion } : {}),
        ...(current?.metadata.labels ? { labels: current.metadata.labels } : this.options.labels ? { labels: this.options.labels } : {}),
        ...(Object.keys(annotations).length ? { annotations } : {}),
      },
      spec: next,
    };
  }

  /** client-go's release: an empty holder with a 1 s duration, so a follower need not wait for expiry. */
  private async release() {
    const observed = this.observed?.lease;
    if (!observed || observed.spec.holderIdentity !== this.options.identity) return;
    const now = this.clock.now();
    const released: LeaseObject = {
      ...observed,
      metadata: { ...observed.metadata, annotations: { ...observed.metadata.annotations, ...this.options.annotations?.() } },
      spec: { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: observed.spec.leaseTransitions ?? 0 },
    };
    try {
      this.record(await this.options.lock.update(released, this.timings.renewDeadlineMs), now);
      this.options.logger.info('released the lease', { lease: this.describe(), identity: this.options.identity });
    } catch (error) {
      this.options.logger.warn('cannot release the lease; followers take over once it expires', { lease: this.describe(), error: (error as Error).message });
    }
  }

  private record(lease: LeaseObject, now: number) {
    if (!this.observed || !sameRecord(this.observed.lease.spec, lease.spec)) this.observed = { lease, at: now };
    else this.observed = { lease, at: this.observed.at };
    const holder = lease.spec.holderIdentity || undefined;
    if (holder !== this.lastHolder) {
      this.lastHolder = holder;
      this.options.onNewLeader?.(holder);
    }
  }

  /** Resolves true when woken by `observe` rather than after `ms`. */
  private async sleep(ms: number): Promise<boolean> {
    await sleep(this.clock, ms, AbortSignal.any([this.stopper.signal, this.waker.signal]));
    if (!this.waker.signal.aborted) return false;
    this.waker = new AbortController();
    return true;
  }

  private wake() {
    this.waker.abort();
  }

  private describe() {
    return `${this.options.lock.namespace}/${this.options.lock.name}`;
  }
}

function sameRecord(a: LeaseSpec, b: LeaseSpec): boolean {
  return (
    (a.holderIdentity ?? '') === (b.holderIdentity ?? '') &&
    a.leaseDurationSeconds === b.leaseDurationSeconds &&
    a.acquireTime === b.acquireTime &&
    a.renewTime === b.renewTime &&
    (a.leaseTransitions ?? 0) === (b.leaseTransitions ?? 0)
  );
}

/** client-go's checks: a leader must give up (renewDeadline) before a follower may take over (leaseDuration). */
export function validateTimings({ leaseDurationMs, renewDeadlineMs, retryPeriodMs }: LeaderElectionTimings) {
  if (!(retryPeriodMs > 0)) throw new RangeError('The retry period must be positive');
  if (!(leaseDurationMs > renewDeadlineMs)) throw new RangeError(`The lease duration (${leaseDurationMs} ms) must be greater than the renew deadline (${renewDeadlineMs} ms)`);
  if (!(renewDeadlineMs > JITTER_FACTOR * retryPeriodMs))
    throw new RangeError(`The renew deadline (${renewDeadlineMs} ms) must be greater than ${JITTER_FACTOR} × the retry period (${retryPeriodMs} ms)`);
  if (leaseDurationMs % 1_000 !== 0) throw new RangeError(`The lease duration is stored in whole seconds; ${leaseDurationMs} ms is not`);
}
