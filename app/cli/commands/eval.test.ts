import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LLMock } from '@copilotkit/aimock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingScript } from '../../../e2e/peers/mcp/everything';
import { parseXml } from '../../../main/evals/testing/parseXml';
import { startScriptedModels } from '../../../main/evals/testing/scriptedModels';
import { EvalReport } from '../../../shared/evals';
import { runTooldeck } from '../testing/runTooldeck';

/** `tooldeck eval` against real parts: server-everything as the agent's granted server, aimock as the models. */
const pod = `services:
  runner:
    image: example/runner
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [get-sum, echo]
`;
const suite = `name: sums
agent: runner
cases:
  - name: adds
    prompt: Please add 2 and 40
    expect:
      toolCalls:
        - tool: everything.get-sum
          arguments: { a: number, b: number }
      finalAnswerContains: "42"
`;

let mock: LLMock;
let dataDir: string;
let suiteFile: string;
let workspace: string;

beforeAll(async () => {
  const models = await startScriptedModels();
  mock = models.mock;
  dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-eval-cli-'));
  workspace = mkdtempSync(join(tmpdir(), 'tooldeck-eval-ws-'));
  writeFileSync(join(workspace, 'agents.claw-pod.yml'), pod);
  mkdirSync(join(workspace, 'evals'));
  suiteFile = join(workspace, 'evals', 'sums.yml');
  writeFileSync(suiteFile, suite);
  expect((await runTooldeck(dataDir, ['mcp', 'add', 'everything', '--stdio', `${process.execPath} ${everythingScript} stdio`])).code).toBe(0);
  expect((await runTooldeck(dataDir, ['providers', 'add', 'mock', '--format', 'openai', '--base-url', `${models.url}/v1`])).code).toBe(0);
  expect((await runTooldeck(dataDir, ['providers', 'add', 'claude', '--format', 'anthropic', '--base-url', models.url])).code).toBe(0);
}, 60_000);

afterAll(async () => {
  await mock?.stop();
});

const evalRun = (...args: string[]) => runTooldeck(dataDir, ['eval', suiteFile, ...args]);

describe('tooldeck eval', { timeout: 120_000 }, () => {
  it('exit 0 when the model picks the right tool (OpenAI and Anthropic formats); the pretty report says so', async () => {
    const run = await evalRun('--model', 'mock/right', '--model', 'claude/right');
    expect(run.stderr).toBe('pass adds [mock/right] run 1\npass adds [claude/right] run 1\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^PASS {2}adds {2}mock\/right +1\/1 {2}100%$/m);
    expect(run.stdout).toMatch(/accuracy 100% \(2\/2 runs\), threshold 100%: every case passed/);
  });

  it('exit 1 when a model picks the wrong tool; the JSON report has accuracy and cases with runs (tool calls, tokens, latency)', async () => {
    const run = await evalRun('--model', 'mock/right', '--model', 'mock/wrong', '--iterations', '2', '--reporter', 'json');
    expect(run.code).toBe(1);
    const report = EvalReport.parse(JSON.parse(run.stdout));
    expect(report.accuracy).toBe(0.5);
    expect(report.cases.map((item) => [item.name, item.model, item.pass_rate, item.passed])).toEqual([
      ['adds', 'mock/right', 1, true],
      ['adds', 'mock/wrong', 0, false],
    ]);
    expect(report.cases[0]!.runs[0]).toMatchObject({ tool_calls: [{ tool: 'mcp:everything.get-sum', arguments: { a: 2, b: 40 }, status: 'ok' }], tokens: { prompt: 22, completion: 14 } });
    expect(report.cases[0]!.runs[0]!.latency_ms).toBeGreaterThanOrEqual(0);
    // A lower threshold lets a case that passes half the time through.
    const lenient = await evalRun('--model', 'mock/wrong', '--threshold', '0', '--reporter', 'json');
    expect(lenient.code).toBe(0);
  });

  it('--no-execute answers tool calls with a placeholder: nothing runs, nothing is recorded', async () => {
    const before = (await runTooldeck(dataDir, ['history', '--via', 'eval', '--json'])).stdout;
    const run = await evalRun('--model', 'mock/right', '--no-execute', '--reporter', 'json');
    const report = EvalReport.parse(JSON.parse(run.stdout));
    expect(report.executed).toBe(false);
    expect(report.cases[0]!.runs[0]!.tool_calls[0]!.result).toContain('Not executed');
    expect((await runTooldeck(dataDir, ['history', '--via', 'eval', '--json'])).stdout).toBe(before);
  });

  it('JUnit XML stays well-formed whatever the model answers (control characters, lone surrogates, markup), and says why a case failed', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'tooldeck-eval-junit-')), 'results.xml');
    writeFileSync(suiteFile, suite.replace('finalAnswerContains: "42"', 'finalAnswerContains: "never said"'));
    try {
      const run = await evalRun('--model', 'mock/noisy', '--model', 'mock/right', '--reporter', 'junit', '--out', out);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('FAIL  adds'); // the summary still goes to standard output
      const xml = readFileSync(out, 'utf8');
      const elements = parseXml(xml); // a strict parser: it throws on anything not well-formed
      expect(elements[0]!.attributes.failures).toBe('2');
      const failure = elements.find((element) => element.name === 'failure')!;
      expect(failure.attributes.message).toBe('pass rate 0% (0/1) is below the threshold 100%');
      expect(failure.text).toContain('run 1 answered: Bad \\u0000 bytes \\u001b[31m and </failure><x a="1"> & \\ufffe \\ud800 done');
      expect(failure.text).toContain('Expected everything.get-sum');
    } finally {
      writeFileSync(suiteFile, suite);
    }
  });

  it('--baseline prints each case’s change against an earlier JSON report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-eval-baseline-'));
    const baseline = join(dir, 'baseline.json');
    expect((await evalRun('--model', 'mock/right', '--model', 'mock/wrong', '--reporter', 'json', '--out', baseline)).code).toBe(1);
    const report = JSON.parse(readFileSync(baseline, 'utf8')) as EvalReport;
    // Pretend the wrong model passed last time and the right one is new.
    report.cases = report.cases.filter((item) => item.model === 'mock/wrong').map((item) => ({ ...item, pass_rate: 1, passed: true }));
    report.cases.push({ name: 'gone case', model: 'mock/right', pass_rate: 1, passed: true, runs: [] });
    writeFileSync(baseline, JSON.stringify(report));
    const run = await evalRun('--model', 'mock/right', '--model', 'mock/wrong', '--baseline', baseline);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('  new        adds [mock/right]: 100%\n  worse      adds [mock/wrong]: 100% → 0% (−100%)\n  gone       gone case [mock/right]: was 100%\n');
  });

  it('bad input: exit 2 with one sentence, and no model is asked', async () => {
    const asked = mock.getRequests().length;
    const broken = join(workspace, 'evals', 'broken.yml');
    writeFileSync(broken, suite.replace('prompt:', 'prompt: [unclosed\n    promt:'));
    const cases: [string[], RegExp][] = [
      [['eval', join(workspace, 'nope.yml'), '--model', 'mock/right'], /^Cannot read .*nope\.yml: no such file\.\n$/],
      [['eval', broken, '--model', 'mock/right'], /^.*broken\.yml:\d+:\d+: .+\n$/],
      [['eval', suiteFile], /^Name at least one model to evaluate: --model provider\/model/],
      [['eval', suiteFile, '--model', 'nowhere/x'], /^The model "nowhere\/x" must be <provider>\/<model> with a configured provider \(mock, claude\)\.\n$/],
      [['eval', suiteFile, '--model', 'mock/right', '--threshold', '1.5'], /--threshold must be a pass rate from 0 to 1/],
      [['eval', suiteFile, '--model', 'mock/right', '--iterations', '0'], /--iterations must be a whole number/],
      [['eval', suiteFile, '--model', 'mock/right', '--baseline', suiteFile], /^The baseline .*sums\.yml is not JSON: write it with --reporter json --out FILE\.\n$/],
    ];
    for (const [argv, stderr] of cases) {
      const run = await runTooldeck(dataDir, argv);
      expect([run.code, run.stderr], argv.join(' ')).toEqual([2, expect.stringMatching(stderr)]);
      // Commander's own usage errors add its hint line, as for every command.
      expect(run.stderr.trim().split('\n').filter((line) => line !== '(run with --help for usage)'), argv.join(' ')).toHaveLength(1);
    }
    expect(mock.getRequests().length).toBe(asked);
  });
});
