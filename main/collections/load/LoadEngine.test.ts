import { describe, expect, it } from 'vitest';
import type { LoadTick } from '../../../shared/loadRuns';
import { FakeClock } from '../../platform/testing/FakeClock';
import { ArrivalSchedule } from './ArrivalSchedule';
import { LoadSession, LoadStream, type SendArrival } from './LoadEngine';
import { figuresOf } from './LoadStats';

/** A tool that answers after `serviceMs(k)` of fake time, with an optional error code. */
function fakeTool(clock: FakeClock, serviceMs: (k: number, now: number) => number, code?: (k: number) => string | undefined): SendArrival & { sentAt: number[] } {
  const sentAt: number[] = [];
  const send: SendArrival = (k) => {
    sentAt[k] = clock.now();
    return new Promise<string | undefined>((resolve) => clock.setTimeout(() => resolve(code?.(k)), serviceMs(k, clock.now())));
  };
  return Object.assign(send, { sentAt });
}

async function runFor(session: LoadSession, clock: FakeClock, ms: number) {
  const done = session.run();
  let settled = false;
  void done.then(() => (settled = true));
  for (let t = 0; t < ms && !settled; t += 50) await clock.advance(50);
  expect(settled).toBe(true);
  await done;
}

describe('LoadStream and LoadSession on a fake clock', () => {
  it('sends a constant rate on time and reports each second', async () => {
    const clock = new FakeClock();
    const schedule = new ArrivalSchedule(20, 3_000);
    const send = fakeTool(clock, () => 5);
    const stream = new LoadStream(schedule, 10, clock, 2, send);
    const ticks: LoadTick[] = [];
    const session = new LoadSession([stream], { schedule, clock, epochNow: () => 1_000_000, onTick: (t) => ticks.push(t) });
    await runFor(session, clock, 5_000);

    expect(stream.stats).toMatchObject({ sent: 60, completed: 60, errors: 0 });
    expect(stream.dropped).toBe(0);
    expect(send.sentAt.slice(0, 4)).toEqual([0, 50, 100, 150]);
    // HdrHistogram answers with the top of a value's bucket: within 0.1% (3 significant digits).
    const latency = figuresOf(stream.stats.latency);
    for (const value of [latency.p50, latency.p99, latency.max]) expect(value).toBeCloseTo(5, 1);
    expect(ticks.map((t) => [t.second, t.asked, t.sent, t.completed])).toEqual([
      [1, 20, 20, 20],
      [2, 20, 20, 20],
      [3, 20, 20, 20], // the last answer came at 2,955 ms: the run ends there, in its third second
    ]);
    expect(ticks[0]).toMatchObject({ at: 1_001_000, inFlight: 0, waiting: 0 });
    expect(ticks[0]!.p95).toBeCloseTo(5, 1);
    expect(stream.stats.perRequest.map((r) => r.requests)).toEqual([30, 30]);
  });

  it('measures from the intended send time, so a saturated tool cannot hide the requests it delayed (coordinated omission)', async () => {
    const clock = new FakeClock();
    // Asked for 100/s with one call in flight at a time, against a tool that takes 50 ms: 20/s get through.
    const schedule = new ArrivalSchedule(100, 1_000);
    const send = fakeTool(clock, () => 50);
    const stream = new LoadStream(schedule, 1, clock, 1, send);
    const session = new LoadSession([stream], { schedule, clock });
    await runFor(session, clock, 3_000);

    expect(stream.stats.completed).toBe(20);
    expect(stream.dropped).toBe(80);
    const service = figuresOf(stream.stats.service);
    const latency = figuresOf(stream.stats.latency);
    expect(service.p50).toBeCloseTo(50, 0);
    expect(service.max).toBeCloseTo(50, 0);
    // The k-th call was due at 10k ms and answered at 50(k+1) ms.
    expect(latency.max).toBeCloseTo(50 * 20 - 10 * 19, 0);
    expect(latency.p50!).toBeGreaterThan(8 * service.p50!);
  });

  it('counts a stall in every call that arrived during it, and errors by code', async () => {
    const clock = new FakeClock();
    const schedule = new ArrivalSchedule(100, 1_000);
    // The tool stalls from 200 ms to 700 ms: calls sent meanwhile answer at 700 ms.
    const send = fakeTool(
      clock,
      (_k, now) => (now >= 200 && now < 700 ? 700 - now : 2),
      (k) => (k % 10 === 0 ? 'Timeout' : k % 25 === 1 ? 'ToolError' : undefined),
    );
    const stream = new LoadStream(schedule, 1_000, clock, 1, send);
    const session = new LoadSession([stream], { schedule, clock });
    await runFor(session, clock, 3_000);

    expect(stream.stats.completed).toBe(100);
    expect(stream.stats.errorsByCode).toEqual({ Timeout: 10, ToolError: 4 });
    const latency = figuresOf(stream.stats.latency);
    // Half the calls arrived during the stall and waited 10…500 ms for it to end.
    expect(latency.p50).toBeLessThan(12);
    expect(latency.p75).toBeGreaterThanOrEqual(240);
    expect(latency.max).toBeCloseTo(500, -1);
  });

  it('ramps the rate up over the ramp-up', async () => {
    const clock = new FakeClock();
    const schedule = new ArrivalSchedule(100, 2_000, 1_000);
    const stream = new LoadStream(schedule, 100, clock, 1, fakeTool(clock, () => 1));
    const ticks: LoadTick[] = [];
    const session = new LoadSession([stream], { schedule, clock, onTick: (t) => ticks.push(t) });
    await runFor(session, clock, 4_000);
    expect(stream.stats.sent).toBe(150);
    expect(ticks.slice(0, 2).map((t) => t.asked)).toEqual([50, 100]);
    expect(stream.stats.steadyCompleted).toBe(100);
  });

  it('stops sending when stopped, drops what waited, and leaves out the calls the stop canceled', async () => {
    const clock = new FakeClock();
    const schedule = new ArrivalSchedule(10, 10_000);
    const stopped: Array<() => void> = [];
    const send: SendArrival = (k) =>
      new Promise((resolve) => {
        if (k < 3) clock.setTimeout(() => resolve(undefined), 10);
        else stopped.push(() => resolve('Canceled'));
      });
    const stream = new LoadStream(schedule, 100, clock, 1, send);
    const session = new LoadSession([stream], { schedule, clock });
    const done = session.run();
    await clock.advance(450);
    session.stop();
    for (const cancel of stopped) cancel();
    await clock.advance(10);
    await done;
    expect(stream.stats).toMatchObject({ sent: 5, completed: 3, errors: 0 });
    expect(stream.dropped).toBe(95);
  });

  it('runs streams side by side on one schedule, each at the full rate', async () => {
    const clock = new FakeClock();
    const schedule = new ArrivalSchedule(10, 1_000);
    const a = new LoadStream(schedule, 10, clock, 1, fakeTool(clock, () => 3), 'pod-a');
    const b = new LoadStream(schedule, 10, clock, 1, fakeTool(clock, () => 30), 'pod-b');
    const ticks: LoadTick[] = [];
    const session = new LoadSession([a, b], { schedule, clock, onTick: (t) => ticks.push(t) });
    await runFor(session, clock, 2_000);
    expect([a.stats.completed, b.stats.completed]).toEqual([10, 10]);
    expect(figuresOf(a.stats.latency).p50).toBeCloseTo(3, 1);
    expect(figuresOf(b.stats.latency).p50).toBeCloseTo(30, 1);
    expect(ticks[0]!.asked).toBe(20);
  });
});
