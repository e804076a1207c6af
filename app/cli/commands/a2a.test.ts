import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, startFakeCardHost, type FakeCardHost } from '../../../e2e/peers/a2a/fakeCardHost';
import { startPeers, type PeerSet } from '../../../e2e/peers/a2a/startPeers';
import { CliContext, CliExit, ExitCode } from '../CliContext';
import { registerA2a } from './a2a';

let peers: PeerSet;
let fake: FakeCardHost;

beforeAll(async () => {
  [peers, fake] = await Promise.all([
    startPeers({ sample: { kind: 'sample', options: { stepDelayMs: 10 } }, legacy: { kind: 'legacy', options: { stepDelayMs: 10 } } }),
    startFakeCardHost(() => ({ '/incomplete/.well-known/agent-card.json': { body: { name: 'Half a card', supportedInterfaces: [{ url: 'http://127.0.0.1:9/x', protocolBinding: 'JSONRPC' }] } } })),
  ]);
});
afterAll(async () => {
  await Promise.all([peers?.stop(), fake?.close()]);
});

/** Runs `tooldeck a2a …` on a fresh program wired the way program.ts wires commands; returns the exit code. */
async function run(argv: string[], workspaceDir?: string) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-a2a-cli-'));
  if (workspaceDir) writeFileSync(join(dataDir, 'resources.json'), JSON.stringify({ workspaceDir }));
  const program = new Command('tooldeck').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerA2a(program, new CliContext(io, () => dataDir));
  let code: number = ExitCode.Ok;
  try {
    await program.parseAsync(['a2a', ...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CliExit) {
      stderr += `${error.message}\n`;
      code = error.exitCode;
    } else if (error instanceof CommanderError) code = error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    else throw error;
  }
  return { code, stdout, stderr };
}

describe('tooldeck a2a card', () => {
  it('prints the card and its checks, exit 0 when nothing fails', async () => {
    const result = await run(['card', peers.urls.sample!]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Sample Agent {2}1\.0\.0 {2}\(A2A 1\.0\)/);
    expect(result.stdout).toMatch(/JSONRPC +http:\/\/127\.0\.0\.1:\d+\/a2a\/jsonrpc/);
    expect(result.stdout).toMatch(/report +Report — Works in steps/);
    expect(result.stdout).toMatch(/WARN {2}Card signature: The card is not signed/);
  });

  it('prints JSON with --json and exits 1 when a check fails', async () => {
    const result = await run(['card', `${fake.url}/incomplete`, '--json']);
    expect(result.code).toBe(ExitCode.Failed);
    const report = JSON.parse(result.stdout);
    expect(report.rows.find((r: { id: string }) => r.id === 'required-fields')).toMatchObject({ status: 'fail' });
    expect(result.stderr).toMatch(/check\(s\) failed: required-fields/);
  });

  it('exits 3 when the agent cannot be reached', async () => {
    const result = await run(['card', `http://127.0.0.1:${await closedPort()}`]);
    expect(result.code).toBe(ExitCode.CannotConnect);
    expect(result.stderr).toMatch(/ConnectionFailed \(fetch\): Cannot reach .* connection refused/);
  });
});

describe('tooldeck a2a send', () => {
  it('prints the reply of a blocking send', async () => {
    const result = await run(['send', peers.urls.sample!, 'hello cli']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^hello cli\ncontext [0-9a-f-]{36}\n$/);
  });

  it('prints states as they arrive, then the artifacts, with --stream', async () => {
    const result = await run(['send', peers.urls.legacy!, '/report cli', '--stream']);
    expect(result.code).toBe(0);
    const states = [...result.stdout.matchAll(/^\d\d:\d\d:\d\d\.\d{3} {2}(\w+)/gm)].map((m) => m[1]);
    expect(states[0]).toBe('SUBMITTED');
    expect(states.at(-1)).toBe('COMPLETED');
    expect(result.stdout).toMatch(/artifact report\.md \(text\)\n {2}# Report on cli/);
    expect(result.stdout).toMatch(/artifact report\.json \(data\)\n {2}\{/);
    expect(result.stdout).toMatch(/^task [0-9a-f-]{36} {2}context [0-9a-f-]{36}$/m);
  });

  it('prints one JSON event per line with --stream --json', async () => {
    const result = await run(['send', peers.urls.sample!, '/report json', '--stream', '--json']);
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(events[0]).toMatchObject({ kind: 'task', state: 'SUBMITTED' });
    expect(events.at(-1)).toMatchObject({ kind: 'status', state: 'COMPLETED', final: true });
  });

  it('tells how to answer an agent that asks a question', async () => {
    const asked = await run(['send', peers.urls.sample!, '/ask']);
    expect(asked.code).toBe(0);
    const taskId = /--task (\S+)/.exec(asked.stdout)![1]!;
    const answered = await run(['send', peers.urls.sample!, 'Linus', '--task', taskId]);
    expect(answered.stdout).toMatch(/Hello, Linus!/);
  });

  it('exits 1 when the task fails, 3 when the agent cannot be reached, 2 on a bad option', async () => {
    expect((await run(['send', peers.urls.sample!, '/fail no disk'])).code).toBe(ExitCode.Failed);
    expect((await run(['send', `http://127.0.0.1:${await closedPort()}`, 'hi'])).code).toBe(ExitCode.CannotConnect);
    expect((await run(['send', peers.urls.sample!, 'hi', '--timeout', 'soon'])).code).toBe(ExitCode.Usage);
  });

  it('asks for --yes where a ToolPermission wants turns with the agent approved, as tooldeck call does', async () => {
    const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-a2a-cli-policy-'));
    writeFileSync(
      join(workspaceDir, 'permissions.yaml'),
      'apiVersion: orloj.dev/v1\nkind: ToolPermission\nmetadata:\n  name: approve-every-turn\nspec:\n  tool_ref: "a2a:*"\n  operation_rules:\n    - {operation_class: "*", verdict: approval_required}\n',
    );
    const refused = await run(['send', peers.urls.sample!, 'hello policy'], workspaceDir);
    expect(refused).toMatchObject({ code: ExitCode.Failed, stdout: '', stderr: expect.stringMatching(/^PolicyDenied: a2a:http:\/\/127\.0\.0\.1:\d+\.SendMessage needs approval .*--yes/) });
    const confirmed = await run(['send', peers.urls.sample!, 'hello policy', '--yes'], workspaceDir);
    expect(confirmed).toMatchObject({ code: ExitCode.Ok, stdout: expect.stringMatching(/^hello policy\n/) });
  });
});
