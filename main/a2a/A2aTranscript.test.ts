import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { A2aEvent } from '../../shared/a2a';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { A2aAgentService } from './A2aAgentService';
import { A2aTranscript } from './A2aTranscript';
import { startPeers, type PeerSet } from '../../e2e/peers/a2a/startPeers';

let peers: PeerSet;
let agent: string;

beforeAll(async () => {
  peers = await startPeers({ sample: { kind: 'sample', options: { stepDelayMs: 10 } } });
  agent = peers.urls.sample!;
});
afterAll(() => peers?.stop());

function newService(transcript = new A2aTranscript()) {
  return new A2aAgentService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-tr-')), secretStore: new MemorySecretStore(), logger: silentLogger, transcript });
}

describe('A2aTranscript', () => {
  it('records requests and responses in order, with timestamps and latency', async () => {
    const service = newService();
    const result = await service.send(agent, 'ordered');
    await service.getTask(agent, (await service.send(agent, '/report order')).taskId!);
    const entries = service.transcriptOf(agent);
    expect(entries.map((e) => `${e.direction} ${e.method}`)).toEqual([
      'request GET /.well-known/agent-card.json',
      'response GET /.well-known/agent-card.json',
      'request SendMessage',
      'response SendMessage',
      'request SendMessage',
      'response SendMessage',
      'request GetTask',
      'response GetTask',
    ]);
    expect(entries.map((e) => e.seq)).toEqual([...entries.map((e) => e.seq)].sort((a, b) => a - b));
    for (const [i, entry] of entries.entries()) {
      if (i > 0) expect(entry.at).toBeGreaterThanOrEqual(entries[i - 1]!.at);
      if (entry.direction === 'response') {
        expect(entry.requestSeq).toBe(entries[i - 1]!.seq);
        expect(entry.status).toBe(200);
        expect(entry.latencyMs).toBeGreaterThanOrEqual(0);
      }
    }
    expect(JSON.parse(entries[2]!.body!)).toMatchObject({ jsonrpc: '2.0', method: 'SendMessage', params: { message: { parts: [{ text: 'ordered' }] } } });
    expect(JSON.parse(entries[3]!.body!).result.message.parts[0].text).toBe(result.text);
  });

  it('records each stream event as it arrives, and a stream the client closed', async () => {
    const service = newService();
    const events: A2aEvent[] = [];
    for await (const event of service.stream(agent, '/report streamed')) events.push(event);
    const streamed = service.transcriptOf(agent).filter((e) => e.method === 'SendStreamingMessage');
    expect(streamed.map((e) => e.direction)).toEqual(['request', 'response', ...events.map(() => 'event')]);
    expect(streamed.filter((e) => e.direction === 'event').map((e) => Object.keys(JSON.parse(e.body!).result)[0])).toEqual([
      'task',
      'statusUpdate',
      'statusUpdate',
      'statusUpdate',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);

    const controller = new AbortController();
    await expect(
      (async () => {
        for await (const event of service.stream(agent, '/slow', {}, controller.signal)) if (event.state === 'WORKING') controller.abort();
      })(),
    ).rejects.toMatchObject({ code: 'Canceled' });
    const tail = service.transcriptOf(agent).map((e) => `${e.direction} ${e.method}${e.direction === 'error' ? ` ${e.body}` : ''}`);
    expect(tail).toContain('error SendStreamingMessage stream closed by the client');
    expect(tail.at(-2)).toBe('request CancelTask');
  });

  it('keeps only the latest entries per agent and caps bodies', async () => {
    const service = newService(new A2aTranscript({ maxEntriesPerAgent: 4, maxBodyChars: 60 }));
    for (let i = 0; i < 3; i++) await service.send(agent, `message number ${i} with a body longer than sixty characters in total`);
    const entries = service.transcriptOf(agent);
    expect(entries).toHaveLength(4);
    expect(entries.every((e) => e.method === 'SendMessage')).toBe(true);
    expect(entries.at(-1)!.seq).toBeGreaterThan(entries[0]!.seq);
    const request = entries.find((e) => e.direction === 'request')!;
    expect(request.body).toHaveLength(60);
    expect(request.truncated).toBe(true);
  });
});
