import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LLMock } from '@copilotkit/aimock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModels } from '../../../main/evals/testing/scriptedModels';
import { EvalReport } from '../../../shared/evals';
import { runTooldeck } from '../testing/runTooldeck';

/**
 * `tooldeck eval` on a fresh data folder with the seeded example workspace: the example's own suite
 * (evals/assistant.yml) for agent assistant runs against the workspace's McpServer everything
 * (server-everything over stdio, its line confirmed when the example was seeded), aimock as the
 * provider. No server is saved by hand.
 */
let mock: LLMock;
let dataDir: string;
let suiteFile: string;

beforeAll(async () => {
  const models = await startScriptedModels();
  mock = models.mock;
  dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-eval-example-'));
  // The first command that opens the core seeds the example workspace into <dataDir>/workspace.
  expect((await runTooldeck(dataDir, ['mcp', 'list'])).stdout).toMatch(/everything/);
  expect((await runTooldeck(dataDir, ['providers', 'add', 'mock', '--format', 'openai', '--base-url', `${models.url}/v1`])).code).toBe(0);
  suiteFile = join(dataDir, 'workspace', 'evals', 'assistant.yml');
}, 60_000);

afterAll(async () => {
  await mock?.stop();
});

describe('tooldeck eval with the example workspace', { timeout: 180_000 }, () => {
  it('the example suite for assistant passes with a model that picks the right tools (exit 0) through the workspace’s own server, and fails with one that does not (exit 1)', async () => {
    const right = await runTooldeck(dataDir, ['eval', suiteFile, '--model', 'mock/right', '--reporter', 'json']);
    expect(right.stderr).toBe('pass adds two numbers [mock/right] run 1\npass repeats a message [mock/right] run 1\n');
    expect(right.code).toBe(0);
    const report = EvalReport.parse(JSON.parse(right.stdout));
    expect(report).toMatchObject({ suite: 'assistant', agent: 'assistant', accuracy: 1 });
    expect(report.cases[0]!.runs[0]!.tool_calls).toMatchObject([{ tool: 'mcp:everything.get-sum', status: 'ok' }]);
    expect(report.cases[0]!.runs[0]!.answer).toContain('42');
    expect(report.cases[1]!.runs[0]!.tool_calls).toMatchObject([{ tool: 'mcp:everything.echo', arguments: { message: 'hi' }, status: 'ok' }]);

    const wrong = await runTooldeck(dataDir, ['eval', suiteFile, '--model', 'mock/wrong']);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/^FAIL {2}adds two numbers +mock\/wrong +0\/1 +0%$/m);
    expect(wrong.stdout).toMatch(/^FAIL {2}repeats a message +mock\/wrong +0\/1 +0%$/m);
  });

  it('a source that does not connect is named in one sentence: the suite still runs with the others (exit 0), or ends with exit 2 when its tools are missing', async () => {
    // Nothing listens on port 1: refused at once (sourceReadiness.test.ts covers a source that never answers).
    expect((await runTooldeck(dataDir, ['mcp', 'add', 'refused', '--url', 'http://127.0.0.1:1/mcp'])).code).toBe(0);
    try {
      const run = await runTooldeck(dataDir, ['eval', suiteFile, '--model', 'mock/right']);
      expect([run.code, run.stderr]).toEqual([0, expect.stringMatching(/^Not connected: mcp:refused \(.+\)\.$/m)]);
      expect(run.stderr).toMatch(/^Not connected: mcp:refused \(.+\)\.$/m);

      const picked = join(dataDir, 'workspace', 'evals', 'picked.yml');
      writeFileSync(picked, 'name: picked\ntools: [mcp:refused.echo]\ncases:\n  - name: echoes\n    prompt: Please repeat hi\n    expect:\n      toolCalls: [{ tool: echo }]\n');
      const missing = await runTooldeck(dataDir, ['eval', picked, '--model', 'mock/right']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/^Suite picked: mcp:refused\.echo is not in the registry \(names look like mcp:everything\.echo\)\. Not connected: mcp:refused \(.+\)\.\n$/);
    } finally {
      await runTooldeck(dataDir, ['mcp', 'remove', 'refused']);
    }
  });

  it('the same workspace in another folder: its server waits for its line to be confirmed there (exit 2 with the line and the way on), and --yes runs it', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'tooldeck-eval-example-copy-'));
    cpSync(join(dataDir, 'workspace'), copy, { recursive: true });
    const suite = join(copy, 'evals', 'assistant.yml');
    const held = await runTooldeck(dataDir, ['eval', suite, '--model', 'mock/right']);
    expect(held.code).toBe(2);
    expect(held.stderr).toMatch(
      /^Suite assistant: agent assistant has no tools granted that can be called now \(check its pod file or ToolPermissions\)\. Not connected: mcp:everything \(Starting a command needs the exact command line confirmed first: .+\)\. Run with --yes to start that server \(its command line is then confirmed for the folder\), or confirm in Resources\.\n$/,
    );
    const confirmed = await runTooldeck(dataDir, ['eval', suite, '--model', 'mock/right', '--yes']);
    expect([confirmed.code, confirmed.stderr]).toEqual([0, 'pass adds two numbers [mock/right] run 1\npass repeats a message [mock/right] run 1\n']);
  });
});
