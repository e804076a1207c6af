import { describe, expect, it } from 'vitest';
import type { McpTool } from '../../shared/mcp';
import { SecretRedactor } from '../platform/SecretRedactor';
import { McpTranscript } from './McpTranscript';
import { diffToolLists } from './toolListDiff';

describe('McpTranscript', () => {
  it('pairs responses with requests for latency and masks secrets before storing', () => {
    const transcript = new McpTranscript(new SecretRedactor(['sk-live-123456']));
    transcript.recordOutgoing({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { apiKey: 'k', note: 'uses sk-live-123456', max_tokens: 5 } } });
    transcript.recordIncoming({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    const [request, response] = transcript.list();
    expect(request!.text).not.toContain('sk-live-123456');
    expect(request!.text).toContain('"max_tokens":5');
    expect(JSON.parse(request!.text).params.arguments.apiKey).not.toBe('k');
    expect(response).toMatchObject({ kind: 'response', method: 'tools/call', direction: 'in' });
    expect(response!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(transcript.export().trim().split('\n')).toHaveLength(2);
  });
});

describe('McpTranscript capacity', () => {
  it('keeps the newest 2,000 entries, oldest first, and slices and clears them', () => {
    const transcript = new McpTranscript();
    for (let id = 0; id < 2_500; id++) transcript.recordOutgoing({ jsonrpc: '2.0', method: 'notifications/progress', params: { id } });
    const entries = transcript.list();
    expect(entries).toHaveLength(2_000);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 2_000 }, (_, i) => 500 + i));
    expect(transcript.list(2_400)).toHaveLength(99);
    expect(transcript.slice(0, Date.now() + 1)).toHaveLength(2_000);
    transcript.clear();
    expect(transcript.list()).toEqual([]);
    transcript.recordEvent('after clear');
    expect(transcript.list().map((e) => e.text)).toEqual(['after clear']);
  });
});

describe('tool list diffs', () => {
  it('names added, removed and changed tools with the fields that changed, ignoring key order', () => {
    const before: McpTool[] = [
      { name: 'a', inputSchema: { type: 'object', properties: { x: { type: 'string' } } } },
      { name: 'b', inputSchema: { type: 'object' } },
    ];
    const after: McpTool[] = [
      { name: 'a', inputSchema: { properties: { x: { type: 'string' } }, type: 'object' } },
      { name: 'b', description: 'now described', inputSchema: { type: 'object', required: ['y'] } },
      { name: 'c', inputSchema: { type: 'object' } },
    ];
    expect(diffToolLists(before, after, 1)).toEqual({ at: 1, added: ['c'], removed: [], changed: [{ name: 'b', fields: ['description', 'inputSchema'] }] });
    expect(diffToolLists(after, before.slice(0, 1), 2)).toMatchObject({ removed: ['b', 'c'] });
  });
});
