import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { InvocationRecord } from '../../../shared/invocation';
import { DATABASE_FILE_NAME } from '../../../main/store/InvocationStore';
import { openInvocationStore } from '../../../main/store/openInvocationStore';
import { invocation } from '../../../main/store/testing/testRecords';
import { runTooldeck } from '../testing/runTooldeck';

/** `tooldeck history` filtered by who called and how, on a history file written beforehand. */
describe('tooldeck history --via / --agent / --operator', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-history-cli-'));
  const startedAt = Date.now() - 60_000;

  beforeAll(async () => {
    const { store } = openInvocationStore(join(dataDir, DATABASE_FILE_NAME), { retention: false });
    store.record(invocation({ id: 'from-ui', startedAt, tool: 'echo', via: 'ui' }));
    store.record(invocation({ id: 'from-gateway', startedAt: startedAt + 1, tool: 'get-sum', via: 'gateway', agent: 'planner-bot' }));
    store.record(invocation({ id: 'from-bus', startedAt: startedAt + 2, tool: 'echo', via: 'bus', agent: 'triage-bot' }));
    store.record(invocation({ id: 'before-callers', startedAt: startedAt + 3, tool: 'echo' }));
    await store.close();
  });

  const run = (...argv: string[]) => runTooldeck(dataDir, argv);
  const ids = async (...argv: string[]) => {
    const result = await run('history', '--json', ...argv);
    expect(result.code, result.stderr).toBe(0);
    return (JSON.parse(result.stdout) as InvocationRecord[]).map((r) => r.id);
  };

  it('filters by the way in, by agent, and to the operator’s own calls', async () => {
    expect(await ids('--via', 'gateway')).toEqual(['from-gateway']);
    expect(await ids('--agent', 'triage-bot')).toEqual(['from-bus']);
    expect(await ids('--agent', 'planner-bot', '--via', 'bus')).toEqual([]);
    expect(await ids('--operator')).toEqual(['before-callers', 'from-ui']);
    expect(await ids('--operator', '--tool', 'echo', '--via', 'ui')).toEqual(['from-ui']);
  });

  it('shows who called and how on each row', async () => {
    const rows = (await run('history')).stdout.trim().split('\n');
    expect(rows).toHaveLength(4);
    expect(rows[0]).not.toMatch(/ via | by /);
    expect(rows[1]).toMatch(/echo {2}via bus by triage-bot$/);
    expect(rows[2]).toMatch(/get-sum {2}via gateway by planner-bot$/);
    expect(rows[3]).toMatch(/echo {2}via ui$/);
  });

  it('refuses an unknown way in, an empty agent name, and --agent with --operator, with exit 2', async () => {
    const unknown = await run('history', '--via', 'carrier-pigeon');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Allowed choices are ui, cli, run, app, replay, a2a, gateway, mediation, bus, playground, eval.');
    const empty = await run('history', '--agent', ' ');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("Give an agent's name: 1 to 200 characters.");
    const both = await run('history', '--agent', 'planner-bot', '--operator');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--agent and --operator exclude each other');
  });
});
