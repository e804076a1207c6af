import type { InvocationRecord } from '../../../shared/invocation';
import type { InvocationRecorder } from '../types';

/**
 * A recorder for tests and benches that keeps the last `capacity` records in memory, so a test can
 * read back what the pipeline recorded without a database. The product records through the
 * SQLite InvocationStore (createCore in main/core.ts).
 */
export class MemoryInvocationRecorder implements InvocationRecorder {
  private readonly ring: InvocationRecord[] = [];
  private next = 0;

  constructor(readonly capacity = 1000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a whole number of at least 1');
  }

  record(record: InvocationRecord): void {
    if (this.ring.length < this.capacity) this.ring.push(record);
    else this.ring[this.next] = record;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Newest first. */
  list(limit = this.capacity): InvocationRecord[] {
    const out: InvocationRecord[] = [];
    const count = Math.min(limit, this.ring.length);
    for (let i = 1; i <= count; i++) out.push(this.ring[(this.next - i + this.ring.length * 2) % this.ring.length]!);
    return out;
  }

  get(id: string): InvocationRecord | undefined {
    return this.ring.find((record) => record.id === id);
  }

  get size(): number {
    return this.ring.length;
  }
}
