import { describe, expect, it } from 'vitest';
import { SystemService } from './SystemService';

describe('SystemService', () => {
  it('reports the host, versions and data dir', () => {
    const info = new SystemService({ appVersion: '0.9.0', host: 'cli', dataDir: '/data' }).info();
    expect(info).toMatchObject({ appVersion: '0.9.0', host: 'cli', dataDir: '/data', versions: { node: process.versions.node } });
  });

  it('ticks with increasing sequence numbers and stops when the consumer aborts', async () => {
    const service = new SystemService({ appVersion: '0', host: 'cli', dataDir: '/d' });
    const controller = new AbortController();
    const seqs: number[] = [];
    for await (const beat of service.heartbeat(10, controller.signal)) {
      seqs.push(beat.seq);
      if (seqs.length === 3) controller.abort();
    }
    expect(seqs).toEqual([0, 1, 2]);
  });
});
