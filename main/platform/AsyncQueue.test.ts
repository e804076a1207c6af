import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AsyncQueue } from './AsyncQueue';

async function drain<T>(queue: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of queue) items.push(item);
  return items;
}

describe('AsyncQueue', () => {
  it('hands items out in order, to waiting readers first, and ends after close once the queued ones are read', async () => {
    const queue = new AsyncQueue<number>();
    const first = queue.next();
    const second = queue.next();
    queue.push(1);
    queue.push(2);
    queue.push(3);
    queue.close();
    queue.push(4);
    expect([(await first).value, (await second).value]).toEqual([1, 2]);
    expect(await drain(queue)).toEqual([3]);
  });

  it('keeps the newest items when the reader falls behind, and counts the dropped ones', () => {
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.array(fc.integer(), { maxLength: 30 }), async (capacity, items) => {
        let told = 0;
        const queue = new AsyncQueue<number>({ capacity, onDrop: () => told++ });
        for (const item of items) queue.push(item);
        queue.close();
        const kept = await drain(queue);
        const dropped = Math.max(0, items.length - capacity);
        expect(kept).toEqual(items.slice(dropped));
        expect(queue.dropped).toBe(dropped);
        expect(told).toBe(dropped);
      }),
    );
  });

  it('ends at once on end() or return(), discarding what was queued, and tells onEnd once', async () => {
    let ends = 0;
    const queue = new AsyncQueue<string>({ onEnd: () => ends++ });
    queue.push('a');
    queue.end();
    queue.close();
    await queue.return();
    expect(await queue.next()).toEqual({ value: undefined, done: true });
    expect(ends).toBe(1);
    expect(queue.ended).toBe(true);

    // A reader still waiting learns the end when another stops the queue.
    const stopped = new AsyncQueue<string>();
    const pending = stopped.next();
    await stopped.return();
    expect(await pending).toEqual({ value: undefined, done: true });
  });
});
