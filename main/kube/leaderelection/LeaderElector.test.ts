import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../platform/Logger';
import { DEFAULT_LEADER_ELECTION, JITTER_FACTOR, LeaderElector, validateTimings, type ElectionEnd, type LeaderElectorOptions } from './LeaderElector';
import { FakeClock } from '../../platform/testing/FakeClock';
import { FakeLeaseStore, type FakeLeaseLock } from './testing/FakeLeaseStore';

const { leaseDurationMs: LEASE, renewDeadlineMs: RENEW_DEADLINE, retryPeriodMs: RETRY } = DEFAULT_LEADER_ELECTION;

interface Candidate {
  elector: LeaderElector;
  lock: FakeLeaseLock;
  events: string[];
  ended?: ElectionEnd;
  run: Promise<ElectionEnd>;
}

function setup() {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const store = new FakeLeaseStore();
  const candidate = (identity: string, extra: Partial<LeaderElectorOptions> = {}): Candidate => {
    const lock = store.lockFor(identity);
    const events: string[] = [];
    const elector = new LeaderElector({
      lock,
      identity,
      logger: silentLogger,
      clock,
      // The longest wait client-go's jitter allows, so the bounds below hold for any draw.
      random: () => 0.999,
      labels: { 'app.kubernetes.io/name': 'tooldeck-operator' },
      onStartedLeading: () => events.push('started'),
      onStoppedLeading: (end) => events.push(`stopped:${end}`),
      onNewLeader: (holder) => events.push(`leader:${holder ?? '-'}`),
      ...extra,
    });
    const c: Candidate = { elector, lock, events, run: elector.run() };
    void c.run.then((end) => (c.ended = end));
    return c;
  };
  return { clock, store, candidate };
}

describe('LeaderElector', () => {
  it('acquires a missing Lease by creating it, with client-go’s record', async () => {
    const { clock, store, candidate } = setup();
    const a = candidate('pod-a', { annotations: () => ({ 'tooldeck.dev/namespaces': '*' }) });
    await clock.advanceUntil(() => a.elector.isLeader);
    expect(store.lease).toMatchObject({
      metadata: { name: 'tooldeck-operator', namespace: 'ops', labels: { 'app.kubernetes.io/name': 'tooldeck-operator' }, annotations: { 'tooldeck.dev/namespaces': '*' } },
      spec: { holderIdentity: 'pod-a', leaseDurationSeconds: 15, leaseTransitions: 0 },
    });
    expect(store.lease!.spec.acquireTime).toBe(store.lease!.spec.renewTime);
    expect(store.lease!.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(a.events).toEqual(['leader:pod-a', 'started']);
  });

  it('renews every retry period with one update, keeping acquireTime and transitions', async () => {
    const { clock, store, candidate } = setup();
    const a = candidate('pod-a');
    await clock.advanceUntil(() => a.elector.isLeader);
    const acquired = structuredClone(store.lease!);
    const before = store.requests.length;
    await clock.advanceUntil(() => a.elector.status().renewals === 5);
    expect(store.requests.slice(before)).toEqual(Array.from({ length: 5 }, () => ({ who: 'pod-a', op: 'update' })));
    expect(store.lease!.spec.acquireTime).toBe(acquired.spec.acquireTime);
    expect(store.lease!.spec.leaseTransitions).toBe(0);
    expect(Date.parse(store.lease!.spec.renewTime!) - Date.parse(acquired.spec.renewTime!)).toBe(5 * RETRY);
  });

  it('stops leading when no renewal succeeds within the renew deadline, before any follower may take over', async () => {
    const { clock, candidate } = setup();
    const a = candidate('pod-a');
    await clock.advanceUntil(() => a.elector.isLeader);
    const lastRenewal = a.elector.status().lastRenewedAt!;
    a.lock.down = true;
    await clock.advanceUntil(() => a.ended !== undefined);
    expect(a.ended).toBe('lost');
    expect(a.events.at(-1)).toBe('stopped:lost');
    expect(a.elector.isLeader).toBe(false);
    const lostAfter = clock.now() - lastRenewal;
    expect(lostAfter).toBeGreaterThanOrEqual(RENEW_DEADLINE);
    expect(lostAfter).toBeLessThanOrEqual(RETRY + RENEW_DEADLINE);
    expect(lostAfter).toBeLessThan(LEASE);
  });

  it('a follower observes the holder and never takes a lease that keeps being renewed', async () => {
    const { clock, store, candidate } = setup();
    const a = candidate('pod-a');
    await clock.advanceUntil(() => a.elector.isLeader);
    const b = candidate('pod-b');
    await clock.advanceUntil(() => b.events.includes('leader:pod-a'));
    await clock.advance(10 * LEASE);
    expect(b.elector.isLeader).toBe(false);
    expect(b.elector.status()).toMatchObject({ leader: 'pod-a', leading: false });
    expect(store.lease!.spec.holderIdentity).toBe('pod-a');
    expect(store.requests.filter((r) => r.who === 'pod-b').every((r) => r.op === 'get')).toBe(true);
  });

  it('takes over an expired lease once it went unchanged for the lease duration on the follower’s own clock', async () => {
    const { clock, store, candidate } = setup();
    const a = candidate('pod-a');
    await clock.advanceUntil(() => a.elector.isLeader);
    const b = candidate('pod-b');
    await clock.advanceUntil(() => b.events.includes('leader:pod-a'));
    // The leader dies: nothing renews the Lease any more.
    a.lock.down = true;
    const lastChange = Date.parse(store.lease!.spec.renewTime!);
    await clock.advanceUntil(() => b.elector.isLeader);
    const tookOver = clock.now() - lastChange;
    expect(tookOver).toBeGreaterThanOrEqual(LEASE);
    expect(tookOver).toBeLessThanOrEqual(LEASE + RETRY * (1 + JITTER_FACTOR));
    expect(store.lease!.spec).toMatchObject({ holderIdentity: 'pod-b', leaseTransitions: 1 });
    // The old leader had stopped before the new one started: never two leaders.
    expect(a.ended).toBe('lost');
    expect(b.events).toEqual(['leader:pod-a', 'leader:pod-b', 'started']);
  });

  it('with a watch feeding it, a follower takes over exactly when the observed lease expires', async () => {
    const { clock, store, candidate } = setup();
    const a = candidate('pod-a');
    await clock.advanceUntil(() => a.elector.isLeader);
    const b = candidate('pod-b');
    await clock.advanceUntil(() => b.events.includes('leader:pod-a'));
    // Every renewal reaches the follower as a watch event.
    let watched = store.lease!.metadata.resourceVersion;
    const feed = () => {
      if (store.lease!.metadata.resourceVersion === watched) return;
      watched = store.lease!.metadata.resourceVersion;
      b.elector.observe(structuredClone(store.lease!));
    };
    await clock.advanceUntil(() => (feed(), a.elector.status().renewals >= 3));
    const killedAt = clock.now();
    a.lock.down = true;
    await clock.advanceUntil(() => b.elector.isLeader);
    expect(clock.now() - killedAt).toBeLessThanOrEqual(LEASE + 1);
  });

  it('releases on stop (empty holder, 1 s) and a watching follower acquires at once', async () => {
    const { clock, store, candidate } = setup();
    const a = candidate('pod-a');
    await clock.advanceUntil(() => a.elector.isLeader);
    const b = candidate('pod-b');
    await clock.advanceUntil(() => b.events.includes('leader:pod-a'));
    const stopping = a.elector.stop();
    await clock.advanceUntil(() => a.ended !== undefined);
    expect(await stopping).toBe('released');
    expect(a.events.at(-1)).toBe('stopped:released');
    expect(store.lease!.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });
    const releasedAt = clock.now();
    b.elector.observe(structuredClone(store.lease!));
    await clock.advanceUntil(() => b.elector.isLeader);
    expect(clock.now() - releasedAt).toBe(0);
    expect(store.lease!.spec).toMatchObject({ holderIdentity: 'pod-b', leaseTransitions: 1 });
  });

  it('without a watch, a follower acquires a released lease at its next attempt', async () => {
    const { clock, candidate } = setup();
    const a = candidate('pod-a');
    await clock.advanceUntil(() => a.elector.isLeader);
    const b = candidate('pod-b');
    await clock.advanceUntil(() => b.events.includes('leader:pod-a'));
    void a.elector.stop();
    await clock.advanceUntil(() => a.ended !== undefined);
    const releasedAt = clock.now();
    await clock.advanceUntil(() => b.elector.isLeader);
    expect(clock.now() - releasedAt).toBeLessThanOrEqual(RETRY * (1 + JITTER_FACTOR));
  });

  it('a candidate stopped before it led ends without touching the lease', async () => {
    const { clock, store, candidate } = setup();
    const a = candidate('pod-a');
    await clock.advanceUntil(() => a.elector.isLeader);
    const b = candidate('pod-b');
    await clock.advanceUntil(() => b.events.includes('leader:pod-a'));
    const writes = store.requests.filter((r) => r.who === 'pod-b' && r.op !== 'get').length;
    void b.elector.stop();
    await clock.advanceUntil(() => b.ended !== undefined);
    expect(b.ended).toBe('stopped');
    expect(b.events).not.toContain('started');
    expect(store.requests.filter((r) => r.who === 'pod-b' && r.op !== 'get')).toHaveLength(writes);
    expect(store.lease!.spec.holderIdentity).toBe('pod-a');
  });

  it('of two candidates racing for a free lease exactly one wins: the other’s stale update gets a 409', async () => {
    const { clock, store, candidate } = setup();
    const a = candidate('pod-a');
    await clock.advanceUntil(() => a.elector.isLeader);
    void a.elector.stop();
    await clock.advanceUntil(() => a.ended !== undefined);
    const b = candidate('pod-b');
    // pod-c writes between pod-b's read and pod-b's update.
    b.lock.beforeWrite = () =>
      store.writeDirectly((lease) => ({ ...lease, spec: { ...lease.spec, holderIdentity: 'pod-c', leaseDurationSeconds: 15, renewTime: lease.spec.renewTime, leaseTransitions: 1 } }));
    await clock.advanceUntil(() => b.events.includes('leader:pod-c'));
    expect(b.elector.isLeader).toBe(false);
    expect(store.lease!.spec.holderIdentity).toBe('pod-c');
  });

  it('a second candidate creating the same Lease gets a 409 and follows', async () => {
    const { clock, store, candidate } = setup();
    const b = candidate('pod-b');
    b.lock.beforeWrite = () => store.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'tooldeck-operator', namespace: 'ops' }, spec: { holderIdentity: 'pod-a', leaseDurationSeconds: 15 } });
    await clock.advanceUntil(() => b.events.includes('leader:pod-a'));
    await clock.advance(LEASE - 1_000);
    expect(b.elector.isLeader).toBe(false);
  });

  it('a leader whose optimistic renewal conflicts reads the lease and renews when it still holds it', async () => {
    const { clock, store, candidate } = setup();
    const a = candidate('pod-a');
    await clock.advanceUntil(() => a.elector.isLeader);
    // Someone annotates the Lease: the leader's cached resourceVersion is stale now.
    store.writeDirectly((lease) => ({ ...lease, metadata: { ...lease.metadata, annotations: { note: 'hi' } } }));
    await clock.advanceUntil(() => a.elector.status().renewals === 1);
    expect(a.elector.isLeader).toBe(true);
    expect(store.requests.slice(-3).map((r) => r.op)).toEqual(['update', 'get', 'update']);
    expect(store.lease!.metadata.annotations).toEqual({ note: 'hi' });
  });

  it('a leader that finds another holder on the Lease stops leading at once', async () => {
    const { clock, store, candidate } = setup();
    const a = candidate('pod-a');
    await clock.advanceUntil(() => a.elector.isLeader);
    store.writeDirectly((lease) => ({ ...lease, spec: { ...lease.spec, holderIdentity: 'pod-z', renewTime: lease.spec.renewTime } }));
    const took = await clock.advanceUntil(() => a.ended !== undefined);
    expect(a.ended).toBe('lost');
    expect(took).toBeLessThanOrEqual(RETRY);
  });

  it('keeps trying to acquire while the apiserver is unreachable, then acquires', async () => {
    const { clock, candidate } = setup();
    const a = candidate('pod-a');
    a.lock.down = true;
    await clock.advance(5 * LEASE);
    expect(a.elector.isLeader).toBe(false);
    a.lock.down = false;
    await clock.advanceUntil(() => a.elector.isLeader, RETRY * (1 + JITTER_FACTOR));
  });

  it('refuses timings under which a follower could take over before the leader gives up', () => {
    expect(() => validateTimings({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 })).toThrow(/greater than the renew deadline/);
    expect(() => validateTimings({ leaseDurationMs: 15_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).toThrow(/1.2 × the retry period/);
    expect(() => validateTimings({ leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 500 })).toThrow(/whole seconds/);
    expect(() => validateTimings(DEFAULT_LEADER_ELECTION)).not.toThrow();
  });
});
