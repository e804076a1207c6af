import { describe, expect, it } from 'vitest';
import { normalizeRuntime } from '../../registry/policy/normalizeRuntime';
import { applyDefaults } from '../applyDefaults';
import { parseResourceText } from '../parseResourceText';

const tool = (spec: string) => `apiVersion: orloj.dev/v1\nkind: Tool\nmetadata:\n  name: weather\nspec:\n${spec}`;

/** `line:column path: message` of every error (and warning, if asked) in the text. */
function problems(text: string, severity: 'error' | 'warning' = 'error'): string[] {
  return parseResourceText(text).flatMap((doc) => doc.diagnostics.filter((d) => d.severity === severity).map((d) => `${d.line}:${d.column} ${d.path ?? ''}: ${d.message}`));
}

function stored(spec: Record<string, unknown>) {
  return applyDefaults({ apiVersion: 'orloj.dev/v1', kind: 'Tool', metadata: { name: 'weather' }, spec }).spec as Record<string, unknown>;
}

describe('Orloj Tool', () => {
  it('Orloj reference: a Tool with no spec is stored with every default', () => {
    expect(applyDefaults({ apiVersion: 'orloj.dev/v1', kind: 'Tool', metadata: { name: 'weather' } })).toEqual({
      apiVersion: 'orloj.dev/v1',
      kind: 'Tool',
      metadata: { name: 'weather', namespace: 'default' },
      spec: {
        type: 'http',
        operation_classes: ['read'],
        risk_level: 'low',
        runtime: { timeout: '30s', isolation_mode: 'none', retry: { max_attempts: 1, backoff: '0s', max_backoff: '30s', jitter: 'none' } },
      },
    });
  });

  it('Orloj reference: type defaults to http, takes every allowed value, rejects unknown ones at their line', () => {
    expect(stored({}).type).toBe('http');
    for (const type of ['http', 'external', 'grpc', 'webhook-callback', 'queue']) expect(stored({ type }).type).toBe(type);
    expect(stored({ type: ' GRPC ' }).type).toBe('grpc');
    expect(problems(tool('  type: ftp\n'))).toEqual(['6:9 spec.type: "ftp" is not one of http, external, grpc, webhook-callback, queue, mcp']);
  });

  it('Orloj reference: type mcp needs mcp_server_ref and mcp_tool_name', () => {
    expect(problems(tool('  type: mcp\n'))).toEqual([
      "5:1 spec.mcp_server_ref: is required when type is mcp (the McpServer that provides the tool)",
      "5:1 spec.mcp_tool_name: is required when type is mcp (the tool's name in tools/list)",
    ]);
    expect(stored({ type: 'mcp', mcp_server_ref: ' everything ', mcp_tool_name: 'echo' })).toMatchObject({ type: 'mcp', mcp_server_ref: 'everything', mcp_tool_name: 'echo' });
  });

  it('Orloj reference: auth.profile defaults to bearer when secretRef is set; unknown profiles are rejected', () => {
    expect(stored({ auth: { secretRef: 'weather-token' } }).auth).toEqual({ profile: 'bearer', secretRef: 'weather-token' });
    expect(stored({ auth: { scopes: ['read'] } }).auth).toEqual({ scopes: ['read'] });
    expect(problems(tool('  auth:\n    profile: digest\n    secretRef: s\n'))).toEqual(['7:14 spec.auth.profile: "digest" is not one of bearer, api_key_header, basic, oauth2_client_credentials']);
  });

  it('Orloj reference: secretRef is required when profile is set', () => {
    expect(problems(tool('  auth:\n    profile: basic\n'))).toEqual(['6:3 spec.auth.secretRef: is required when profile is set (profile is basic)']);
  });

  it('Orloj reference: headerName is required when profile is api_key_header', () => {
    expect(problems(tool('  auth:\n    profile: api_key_header\n    secretRef: key\n'))).toEqual(['6:3 spec.auth.headerName: is required when profile is api_key_header']);
    expect(stored({ auth: { profile: 'API_KEY_HEADER', secretRef: 'key', headerName: 'X-Api-Key' } }).auth).toEqual({ profile: 'api_key_header', secretRef: 'key', headerName: 'X-Api-Key' });
  });

  it('Orloj reference: tokenURL is required when profile is oauth2_client_credentials', () => {
    expect(problems(tool('  auth:\n    profile: oauth2_client_credentials\n    secretRef: client\n'))).toEqual(['6:3 spec.auth.tokenURL: is required when profile is oauth2_client_credentials']);
  });

  it('Orloj reference: capabilities are trimmed and deduplicated case-insensitively', () => {
    expect(stored({ capabilities: [' Search ', 'search', 'SEARCH', 'forecast', ''] }).capabilities).toEqual(['Search', 'forecast']);
  });

  it('Orloj reference: operation_classes are trimmed, lowercased, deduplicated; invalid values are rejected at their index', () => {
    expect(stored({ operation_classes: [' Write', 'READ', 'write'] }).operation_classes).toEqual(['write', 'read']);
    expect(problems(tool('  operation_classes: [read, execute]\n'))).toEqual(['6:29 spec.operation_classes[1]: "execute" is not one of read, write, delete, admin']);
  });

  it('Orloj reference: operation_classes default to [read] for low/medium risk and [write] for high/critical', () => {
    expect(stored({ risk_level: 'low' }).operation_classes).toEqual(['read']);
    expect(stored({ risk_level: 'medium' }).operation_classes).toEqual(['read']);
    expect(stored({ risk_level: 'high' }).operation_classes).toEqual(['write']);
    expect(stored({ risk_level: 'critical', operation_classes: [] }).operation_classes).toEqual(['write']);
  });

  it('Orloj reference: risk_level defaults to low; other values are rejected', () => {
    expect(stored({}).risk_level).toBe('low');
    expect(stored({ risk_level: ' High ' }).risk_level).toBe('high');
    expect(problems(tool('  risk_level: extreme\n'))).toEqual(['6:15 spec.risk_level: "extreme" is not one of low, medium, high, critical']);
  });

  it('Orloj reference: runtime.timeout defaults to 30s and must parse as a duration', () => {
    expect((stored({ runtime: { timeout: '1m30s' } }).runtime as { timeout: string }).timeout).toBe('1m30s');
    expect((stored({ runtime: {} }).runtime as { timeout: string }).timeout).toBe('30s');
    // Zero is Go's zero value: unset, so the default applies.
    expect((stored({ runtime: { timeout: '0s' } }).runtime as { timeout: string }).timeout).toBe('30s');
    expect(problems(tool('  runtime:\n    timeout: abc\n'))).toEqual(['7:14 spec.runtime.timeout: "abc" is not a duration: expected numbers with units (ns, us, ms, s, m, h), e.g. "30s", "1m30s", "250ms"']);
    expect(problems(tool('  runtime:\n    timeout: 30\n'))).toEqual(['7:14 spec.runtime.timeout: 30 is not a duration: write it as a string with a unit, e.g. "30s"']);
    expect(problems(tool('  runtime:\n    timeout: -5s\n'))).toEqual(['7:14 spec.runtime.timeout: "-5s" must be positive']);
  });

  it('Orloj reference: isolation_mode defaults to sandboxed for high/critical risk and none for low/medium', () => {
    const isolation = (spec: Record<string, unknown>) => (stored(spec).runtime as { isolation_mode: string }).isolation_mode;
    expect(isolation({ risk_level: 'low' })).toBe('none');
    expect(isolation({ risk_level: 'medium' })).toBe('none');
    expect(isolation({ risk_level: 'high' })).toBe('sandboxed');
    expect(isolation({ risk_level: 'critical' })).toBe('sandboxed');
    expect(isolation({ risk_level: 'critical', runtime: { isolation_mode: 'WASM' } })).toBe('wasm');
    expect(problems(tool('  runtime:\n    isolation_mode: vm\n'))).toEqual(['7:21 spec.runtime.isolation_mode: "vm" is not one of none, sandboxed, container, wasm']);
  });

  it('Orloj reference: retry defaults to max_attempts 1, backoff 0s, max_backoff 30s, jitter none', () => {
    expect((stored({ runtime: { retry: {} } }).runtime as { retry: unknown }).retry).toEqual({ max_attempts: 1, backoff: '0s', max_backoff: '30s', jitter: 'none' });
    expect((stored({ runtime: { retry: { max_attempts: 4, backoff: '250ms', max_backoff: '5s', jitter: 'Equal' } } }).runtime as { retry: unknown }).retry).toEqual({
      max_attempts: 4,
      backoff: '250ms',
      max_backoff: '5s',
      jitter: 'equal',
    });
    expect(problems(tool('  runtime:\n    retry: {max_attempts: 2.5, backoff: -1s, max_backoff: soon, jitter: random}\n'))).toEqual([
      '7:27 spec.runtime.retry.max_attempts: must be a whole number, got number 2.5',
      '7:41 spec.runtime.retry.backoff: "-1s" must not be negative',
      '7:59 spec.runtime.retry.max_backoff: "soon" is not a duration: expected numbers with units (ns, us, ms, s, m, h), e.g. "30s", "1m30s", "250ms"',
      '7:73 spec.runtime.retry.jitter: "random" is not one of none, full, equal',
    ]);
  });

  it('stores a runtime that the registry reads back to the same policy it reads from the file', () => {
    for (const [risk, runtime] of [
      ['low', undefined],
      ['high', { timeout: '45s', retry: { max_attempts: 3, backoff: '1s', jitter: 'full' } }],
      ['critical', { isolation_mode: 'container', retry: { max_backoff: '0s' } }],
    ] as const) {
      const spec = stored({ risk_level: risk, ...(runtime ? { runtime } : {}) });
      expect(normalizeRuntime(spec.runtime as never, risk)).toEqual(normalizeRuntime(runtime, risk));
    }
  });

  it('Orloj reference: status is the reconciler\'s; a status in the file is ignored with a warning', () => {
    expect(problems(tool('  type: http\nstatus:\n  phase: Ready\n'), 'warning')).toEqual(['7:1 status: is written by the reconciler; the value in the file is ignored']);
    expect(applyDefaults({ apiVersion: 'orloj.dev/v1', kind: 'Tool', metadata: { name: 'w' }, status: { phase: 'Ready' } })).not.toHaveProperty('status');
  });

  it('warns about fields the kind does not have, suggesting the one meant', () => {
    expect(problems(tool('  risk-level: high\n'), 'warning')).toEqual(['6:3 spec.risk-level: is not a field here and is ignored; did you mean risk_level?']);
    expect(stored({ 'risk-level': 'high' }).risk_level).toBe('low');
  });

  it('applyDefaults is pure: the input is left as it was and the same input gives the same stored object', () => {
    const input = { apiVersion: 'orloj.dev/v1', kind: 'Tool', metadata: { name: 'w' }, spec: { risk_level: ' HIGH ', capabilities: ['a', 'A'], runtime: { retry: {} } } };
    const copy = structuredClone(input);
    const first = applyDefaults(input);
    expect(input).toEqual(copy);
    expect(applyDefaults(input)).toEqual(first);
    expect(applyDefaults(first)).toEqual(first);
  });

  it('reports every problem of a document at once, and applyDefaults throws them all by path', () => {
    expect(() => applyDefaults({ apiVersion: 'orloj.dev/v1', kind: 'Tool', metadata: { name: 'w' }, spec: { type: 'ftp', runtime: { timeout: 'abc' } } })).toThrow(
      /^spec\.type: "ftp" is not one of .*; spec\.runtime\.timeout: "abc" is not a duration/,
    );
  });
});
