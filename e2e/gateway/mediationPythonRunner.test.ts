import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMediationBed, type MediationBed } from '../../main/mediation/testing/mediationBed';
import { ensurePythonPeers } from '../peers/python/pythonPeers';

/**
 * A runner in another language: the official OpenAI Python client, pointed at the gateway's
 * mediation endpoint with the agent's credential, gets answers produced with its managed tools,
 * plain and streamed, and a 400 it can read for an unknown provider.
 */
let bed: MediationBed;
let python: string;

beforeAll(async () => {
  python = join(ensurePythonPeers(), 'python');
  bed = await startMediationBed();
}, 600_000);

afterAll(async () => {
  await bed?.close();
});

describe('the OpenAI Python client as a runner', { timeout: 120_000 }, () => {
  it('gets the terminal answer (plain and streamed) while the managed call runs in the pipeline as the agent', async () => {
    const before = (await bed.core.history.list({ agent: 'runner', tool: 'get-sum' })).items.length;
    // Asynchronous on purpose: the gateway answering it runs in this process.
    const { stdout } = await promisify(execFile)(python, [join(import.meta.dirname, 'pythonRunner.py'), `${bed.origin}/v1`, bed.credentials.runner, 'mock/gpt-py', 'Please add 2 and 40'], { timeout: 100_000 });
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as { content: string; tool_calls: unknown; streamed: string; refused: { status: number; message: string } };
    expect(out).toMatchObject({ content: 'The sum is 42.', tool_calls: null, streamed: 'The sum is 42.' });
    expect(out.refused.status).toBe(400);
    expect(out.refused.message).toMatch(/configured provider/);
    expect((await bed.core.history.list({ agent: 'runner', tool: 'get-sum' })).items.length).toBe(before + 2);
  });
});
