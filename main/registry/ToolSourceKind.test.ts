import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import type { SourceKind } from '../../shared/invocation';
import { closeSourceKinds, isLastingSource, prepareSource, savedSourceIds, sourceEndpoints, type SourceKinds, type ToolSourceKind } from './ToolSourceKind';

/** A hand-written kind that records what it was asked; the adapters themselves are tested against real peers in their folders. */
function recordingKind<K extends SourceKind>(kind: K, sources: Record<string, { endpoint?: string; lasting?: boolean; disabled?: boolean }>, log: string[]): ToolSourceKind<K> {
  return {
    kind,
    async prepare(name) {
      log.push(`prepare ${kind} ${name}`);
      if (!sources[name]) throw new AppError('NotFound', `no ${kind} ${name}`);
    },
    lasting: (name) => sources[name]?.lasting ?? false,
    endpoints: async () => Object.fromEntries(Object.entries(sources).flatMap(([name, source]) => (source.endpoint ? [[name, source.endpoint]] : []))),
    savedSources: async ({ disabled }) => Object.entries(sources).flatMap(([name, source]) => (source.disabled && !disabled ? [] : [name])),
    async close() {
      log.push(`close ${kind}`);
    },
  };
}

function kinds(log: string[]): SourceKinds {
  return {
    mcp: recordingKind('mcp', { everything: { endpoint: 'http://127.0.0.1:3001/mcp', lasting: true }, off: { disabled: true, lasting: true } }, log),
    a2a: recordingKind('a2a', { helper: { endpoint: 'http://127.0.0.1:4000', lasting: true } }, log),
    grpc: recordingKind('grpc', { hid: { endpoint: '127.0.0.1:50051', lasting: true } }, log),
    http: recordingKind('http', { 'trading-api': { lasting: true } }, log),
    bus: recordingKind('bus', {}, log),
  };
}

describe('the source kinds record', () => {
  it('prepares a source through its own kind, with the bare name, and passes its errors on unchanged', async () => {
    const log: string[] = [];
    await prepareSource(kinds(log), { kind: 'grpc', name: 'hid' });
    await expect(prepareSource(kinds(log), { kind: 'a2a', name: 'ghost' })).rejects.toMatchObject({ code: 'NotFound', message: 'no a2a ghost' });
    expect(log).toEqual(['prepare grpc hid', 'prepare a2a ghost']);
  });

  it('asks the kind whether a source lasts', () => {
    expect(isLastingSource(kinds([]), { kind: 'mcp', name: 'everything' })).toBe(true);
    expect(isLastingSource(kinds([]), { kind: 'mcp', name: 'one-off' })).toBe(false);
  });

  it('names endpoints and saved sources by source id, every kind together', async () => {
    expect(await sourceEndpoints(kinds([]))).toEqual({ 'mcp:everything': 'http://127.0.0.1:3001/mcp', 'a2a:helper': 'http://127.0.0.1:4000', 'grpc:hid': '127.0.0.1:50051' });
    expect((await savedSourceIds(kinds([]))).sort()).toEqual(['a2a:helper', 'grpc:hid', 'http:trading-api', 'mcp:everything']);
    expect((await savedSourceIds(kinds([]), { disabled: true })).sort()).toEqual(['a2a:helper', 'grpc:hid', 'http:trading-api', 'mcp:everything', 'mcp:off']);
  });

  it('closes the kinds one after another, in the order of the record', async () => {
    const log: string[] = [];
    await closeSourceKinds(kinds(log));
    expect(log).toEqual(['close mcp', 'close a2a', 'close grpc', 'close http', 'close bus']);
  });
});
