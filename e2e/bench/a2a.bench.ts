/**
 * SendMessage through A2aAgentService (auth layer, transcript, normalization, threads) against the
 * bare @a2a-js/sdk client, both talking to the same sample agent in its own process. Calls are
 * interleaved, alternating which goes first, so drift on a shared machine hits both equally.
 * Target: median ratio ≤ 1.10. Last line: {"bench":"a2a","ratio":…}.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Role } from '@a2a-js/sdk';
import { A2aAgentService } from '../../main/a2a/A2aAgentService';
import { startPeerProcess } from '../peers/a2a/peerProcess';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { benchCount, round, summarize } from './benchStats';

const CALLS = benchCount(200, 10);
const WARMUP = benchCount(30, 2);

const peers = await startPeerProcess({ sample: { kind: 'sample' } });
try {
  const url = peers.urls.sample!;
  const service = new A2aAgentService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-bench-')), secretStore: new MemorySecretStore(), logger: silentLogger });
  const sdk = await new ClientFactory().createFromUrl(url);

  let n = 0;
  const viaService = async () => {
    const result = await service.send(url, `bench ${n++}`);
    if (result.kind !== 'message') throw new Error('unexpected reply');
  };
  const viaSdk = async () => {
    const text = `bench ${n++}`;
    const result = await sdk.sendMessage({
      tenant: '',
      message: { messageId: crypto.randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [], referenceTaskIds: [] },
      configuration: undefined,
      metadata: undefined,
    });
    if (!('messageId' in result)) throw new Error('unexpected reply');
  };
  const time = async (call: () => Promise<void>) => {
    const started = performance.now();
    await call();
    return performance.now() - started;
  };

  for (let i = 0; i < WARMUP; i++) {
    await viaService();
    await viaSdk();
  }
  const service_ms: number[] = [];
  const sdk_ms: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    if (i % 2 === 0) {
      service_ms.push(await time(viaService));
      sdk_ms.push(await time(viaSdk));
    } else {
      sdk_ms.push(await time(viaSdk));
      service_ms.push(await time(viaService));
    }
  }
  const s = summarize(service_ms);
  const b = summarize(sdk_ms);
  const fmt = (v: number) => v.toFixed(3).padStart(8);
  console.log(`A2A SendMessage, ${CALLS} calls each, interleaved (ms)`);
  console.log(`              median      p99     mean`);
  console.log(`service     ${fmt(s.median)} ${fmt(s.p99)} ${fmt(s.mean)}`);
  console.log(`bare sdk    ${fmt(b.median)} ${fmt(b.p99)} ${fmt(b.mean)}`);
  const paired = summarize(service_ms.map((v, i) => v / sdk_ms[i]!)).median;
  console.log(`p99 ratio   ${(s.p99 / b.p99).toFixed(3)}   median of per-pair ratios ${paired.toFixed(3)}`);
  console.log(JSON.stringify({ bench: 'a2a', ratio: round(s.median / b.median) }));
} finally {
  await peers.stop();
}
