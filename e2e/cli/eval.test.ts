import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LLMock } from '@copilotkit/aimock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModels } from '../../main/evals/testing/scriptedModels';
import { everythingScript } from '../peers/mcp/everything';
import { cliPath } from '../support/tooldeckServer';

/**
 * The built `tooldeck eval` as CI runs it, a process of its own: a workspace with an agent's pod
 * file and `evals/`, server-everything as the agent's server, aimock as the models. Exit codes 0, 1
 * and 2, and the JUnit file CI reads.
 */
const run = promisify(execFile);

async function tooldeck(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cliPath, '--data-dir', dataDir, ...args], { encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let mock: LLMock;
let dataDir: string;
let suiteFile: string;

beforeAll(async () => {
  const models = await startScriptedModels();
  mock = models.mock;
  dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-eval-process-'));
  const workspace = mkdtempSync(join(tmpdir(), 'tooldeck-eval-process-ws-'));
  writeFileSync(join(workspace, 'agents.claw-pod.yml'), 'services:\n  runner:\n    image: example/runner\n    x-claw:\n      cllama: passthrough\n      tools:\n        - service: everything\n          allow: [get-sum, echo]\n');
  mkdirSync(join(workspace, 'evals'));
  suiteFile = join(workspace, 'evals', 'sums.yml');
  writeFileSync(suiteFile, 'name: sums\nagent: runner\ncases:\n  - name: adds\n    prompt: Please add 2 and 40\n    expect:\n      toolCalls: [{ tool: everything.get-sum, arguments: { a: number, b: number } }]\n');
  expect((await tooldeck(dataDir, 'mcp', 'add', 'everything', '--stdio', `${process.execPath} ${everythingScript} stdio`)).code).toBe(0);
  expect((await tooldeck(dataDir, 'providers', 'add', 'mock', '--format', 'openai', '--base-url', `${models.url}/v1`)).code).toBe(0);
}, 60_000);

afterAll(async () => {
  await mock?.stop();
});

describe('tooldeck eval (the built CLI)', { timeout: 120_000 }, () => {
  it('exit 0 when the model picks the right tool, 1 when it picks another (with the JUnit file), 2 on a suite that does not parse', async () => {
    const right = await tooldeck(dataDir, 'eval', suiteFile, '--model', 'mock/right');
    expect([right.code, right.stdout]).toEqual([0, expect.stringContaining('every case passed')]);
    const out = join(dataDir, 'junit.xml');
    const wrong = await tooldeck(dataDir, 'eval', suiteFile, '--model', 'mock/wrong', '--reporter', 'junit', '--out', out);
    expect(wrong.code).toBe(1);
    expect(readFileSync(out, 'utf8')).toMatch(/<testcase classname="sums.mock\/wrong" name="adds \[mock\/wrong\]" time="[\d.]+">\n {6}<failure message="pass rate 0% \(0\/1\) is below the threshold 100%"/);
    writeFileSync(suiteFile, 'name: sums\nagent: runner\ncases:\n  - name: adds\n    expect: {order: sideways}\n');
    const bad = await tooldeck(dataDir, 'eval', suiteFile, '--model', 'mock/right');
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/sums\.yml:\d+:\d+: .+\n$/)]);
  });
});
