import { describe, expect, it } from 'vitest';
import { invocation } from '../store/testing/testRecords';
import { LiveFeed } from './LiveFeed';

describe('LiveFeed', () => {
  it('delivers each published record to every subscriber, in order', async () => {
    const feed = new LiveFeed();
    const a = feed.subscribe();
    const b = feed.subscribe();
    feed.publish(invocation({ id: '1' }));
    feed.publish(invocation({ id: '2' }));
    expect((await a.next()).value?.id).toBe('1');
    expect((await a.next()).value?.id).toBe('2');
    expect((await b.next()).value?.id).toBe('1');
    // Two reads in flight at once each get their own record.
    const second = b.next();
    const third = b.next();
    feed.publish(invocation({ id: '3' }));
    expect([(await second).value?.id, (await third).value?.id]).toEqual(['2', '3']);
  });

  it('hands a waiting consumer the next record as soon as it is published', async () => {
    const feed = new LiveFeed();
    const received: string[] = [];
    const consumer = (async () => {
      for await (const rec of feed.subscribe()) {
        received.push(rec.id);
        if (received.length === 3) break;
      }
    })();
    for (const id of ['x', 'y', 'z']) {
      await Promise.resolve();
      feed.publish(invocation({ id }));
    }
    await consumer;
    expect(received).toEqual(['x', 'y', 'z']);
    expect(feed.stats().subscribers).toBe(0);
  });

  it('keeps only the newest records for a subscriber that falls behind', async () => {
    const feed = new LiveFeed({ bufferSize: 3 });
    const slow = feed.subscribe();
    for (let i = 0; i < 10; i++) feed.publish(invocation({ id: `r${i}` }));
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await slow.next()).value?.id);
    expect(ids).toEqual(['r7', 'r8', 'r9']);
    expect(feed.stats()).toEqual({ subscribers: 1, dropped: 7 });
  });

  it('ends the stream when the signal aborts, even while waiting, and unsubscribes', async () => {
    const feed = new LiveFeed();
    const controller = new AbortController();
    const stream = feed.subscribe(controller.signal);
    const pending = stream.next();
    controller.abort();
    expect(await pending).toEqual({ value: undefined, done: true });
    feed.publish(invocation({ id: 'late' }));
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    expect(feed.stats().subscribers).toBe(0);

    const already = feed.subscribe(AbortSignal.abort());
    expect(await already.next()).toEqual({ value: undefined, done: true });
    expect(feed.stats().subscribers).toBe(0);
  });
});
