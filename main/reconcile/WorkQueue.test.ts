import { describe, expect, it } from 'vitest';
import { WorkQueue } from './WorkQueue';

describe('WorkQueue', () => {
  it('hands out a key once however often it is added, and never to two workers at once', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    queue.add('a');
    queue.add('b');
    expect(await queue.get()).toBe('a');
    queue.add('a');
    expect(await queue.get()).toBe('b');
    queue.done('b');
    expect(queue.isIdle()).toBe(false);
    queue.done('a');
    // Added while in progress: processed again afterwards.
    expect(await queue.get()).toBe('a');
    queue.done('a');
    expect(queue.isIdle()).toBe(true);
  });

  it('retries a failing key with growing delays and starts over after a success', async () => {
    const queue = new WorkQueue({ baseMs: 10, maxMs: 1_000, jitter: 0 });
    expect([queue.addRateLimited('a'), queue.addRateLimited('a'), queue.addRateLimited('a')]).toEqual([10, 20, 40]);
    expect(queue.retrying()).toEqual(['a']);
    expect(await queue.get()).toBe('a');
    queue.forget('a');
    queue.done('a');
    expect(queue.addRateLimited('a')).toBe(10);
    queue.shutDown();
  });

  it('is idle only once delayed retries have run', async () => {
    const queue = new WorkQueue({ baseMs: 20, jitter: 0 });
    queue.addRateLimited('a');
    expect(queue.isIdle()).toBe(false);
    const key = await queue.get();
    expect(key).toBe('a');
    queue.done('a');
    await queue.whenIdle();
    expect(queue.isIdle()).toBe(true);
  });
});
