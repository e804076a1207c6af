import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentCaller, operatorCaller } from '../../shared/caller';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';

/**
 * The seeded example tells the governance story: Orloj's scoped ToolPermission holds agent
 * assistant's get-tiny-image for approval (approval_required), while its echo and get-sum stay
 * allowed (so the quick start and the example's evals run unattended) and the operator's own
 * calls are not governed by it. server-everything over stdio, its line confirmed by the seeding.
 */
let core: Core;

beforeAll(async () => {
  core = await createCore({ appVersion: '0', host: 'cli', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-example-')), secretStore: new MemorySecretStore(), logger: silentLogger, shutdownGraceMs: 200 });
  await core.servers.connect('everything');
}, 60_000);

afterAll(async () => {
  await core?.close();
});

describe('the example workspace', { timeout: 60_000 }, () => {
  it('assistant’s get-tiny-image needs approval; its echo and get-sum, and the operator’s calls, are allowed', () => {
    const verdict = (tool: string, caller: Parameters<Core['pipeline']['policy']['verdict']>[1]) => core.pipeline.policy.verdict(core.catalog.get(`mcp:everything.${tool}`)!, caller);
    const assistant = agentCaller('assistant', 'gateway');
    expect(verdict('get-tiny-image', assistant)).toMatchObject({ verdict: 'confirm' });
    expect(verdict('get-tiny-image', assistant).rules.map((rule) => rule.name)).toContain('assistant-images-need-approval');
    expect(verdict('echo', assistant).verdict).toBe('allow');
    expect(verdict('get-sum', assistant).verdict).toBe('allow');
    expect(verdict('get-tiny-image', operatorCaller('ui')).verdict).toBe('allow');
    expect(verdict('get-tiny-image', agentCaller('reader', 'gateway')).verdict).toBe('allow');
  });

  it('has an eval suite for assistant, valid as the workspace reads it', () => {
    expect(core.evals.suites()).toEqual([{ file: 'evals/assistant.yml', suite: expect.objectContaining({ name: 'assistant', agent: 'assistant' }) }]);
  });
});
