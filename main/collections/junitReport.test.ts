import { describe, expect, it } from 'vitest';
import { elements, validateJunit } from '../../e2e/peers/junit/validateJunit';
import type { RunSummary } from '../../shared/collections';
import { junitReport } from './junitReport';

const nasty = 'quote " amp & lt < gt > apos \' cdata ]]> tab\tbell\u0007 lone\uD800 emoji 🦀\nline two';

const summary: RunSummary = {
  runId: 'run-1',
  collection: 'odd <names> & "quotes"',
  startedAt: Date.UTC(2026, 10, 1, 12, 0, 0),
  durationMs: 1234,
  requests: { total: 3, passed: 0, failed: 1, errored: 1, skipped: 1 },
  assertions: { total: 1, passed: 0, failed: 1 },
  results: [
    { index: 0, name: nasty, tool: 'mcp:s.t', status: 'failed', durationMs: 5, assertions: [{ description: 'text equals "x"', passed: false, message: nasty, actual: { text: nasty } }], captured: {} },
    { index: 1, name: 'errored', tool: 'mcp:s.t', status: 'errored', durationMs: 0, error: { code: 'ConnectionFailed', message: nasty, retryable: true }, assertions: [], captured: {} },
    { index: 2, name: 'skipped', tool: 'mcp:s.t', status: 'skipped', durationMs: 0, reason: 'not run', assertions: [], captured: {} },
  ],
  connectFailures: [{ target: 'mcp:s', error: { code: 'ConnectionFailed', message: nasty, retryable: true } }],
  canceled: false,
  ok: false,
};

describe('junitReport', () => {
  it('survives any text a tool returns: escaped, XML-safe, and read back intact', () => {
    const root = validateJunit(junitReport([summary]));
    const suite = root.children[0]!;
    expect(suite.attributes).toMatchObject({ name: 'odd <names> & "quotes"', tests: '3', failures: '1', errors: '1', skipped: '1', time: '1.234', timestamp: '2026-11-01T12:00:00' });
    const readable = nasty.replace('\u0007', '\uFFFD').replace('\uD800', '\uFFFD');
    const [failing, errored, skipped] = elements(root, 'testcase');
    expect(failing!.attributes.name).toBe(readable);
    expect(failing!.children[0]!.attributes.message).toBe(`text equals "x": ${readable}`);
    expect(failing!.children[0]!.text).toContain(`actual: ${JSON.stringify({ text: nasty }, null, 2)}`);
    expect(errored!.children[0]).toMatchObject({ name: 'error', attributes: { type: 'ConnectionFailed', message: readable } });
    expect(skipped!.children).toEqual([{ name: 'skipped', attributes: { message: 'not run' }, children: [], text: '' }]);
  });
});
