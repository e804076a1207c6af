import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePythonPeers } from '../../e2e/peers/python/pythonPeers';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { McpService } from './McpService';
import { pipelineFor } from './testing/pipelineFor';

// A server nobody here wrote, in another language and SDK: mcp-server-time from PyPI.
describe('mcp-server-time (Python, from PyPI) over stdio', () => {
  const service = new McpService({
    dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-py-')),
    secretStore: new MemorySecretStore(),
    logger: silentLogger,
    clientInfo: { name: 'tooldeck-test', version: '0' },
  });

  beforeAll(async () => {
    const bin = ensurePythonPeers();
    await service.init();
    await service.save({ config: { name: 'time', transport: 'stdio', command: join(bin, 'mcp-server-time'), args: ['--local-timezone', 'UTC'] } as never });
  }, 600_000);
  const tools = pipelineFor(service);
  afterAll(() => service.close());

  it('lists its tools with their schemas', () => {
    const snapshot = service.get('time');
    expect(snapshot.state.status).toBe('ready');
    expect(snapshot.serverInfo?.name).toBe('mcp-time');
    const names = snapshot.tools.map((t) => t.name).sort();
    expect(names).toEqual(['convert_time', 'get_current_time']);
    expect(snapshot.tools.find((t) => t.name === 'get_current_time')!.inputSchema).toMatchObject({ required: ['timezone'] });
  });

  it('answers get_current_time and convert_time', async () => {
    const now = await tools.call('time', 'get_current_time', { timezone: 'Europe/Paris' });
    expect(JSON.stringify(now.content)).toContain('Europe/Paris');
    const converted = await tools.call('time', 'convert_time', { source_timezone: 'UTC', time: '12:00', target_timezone: 'Asia/Tokyo' });
    expect(JSON.stringify(converted.content)).toContain('21:00');
  });

  it('reports a tool error for an unknown timezone as isError, keeping the connection', async () => {
    const result = await tools.call('time', 'get_current_time', { timezone: 'Mars/Olympus_Mons' });
    expect(result.isError).toBe(true);
    expect(service.get('time').state.status).toBe('ready');
  });
});
