import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentCredentials, GATEWAY_AGENTS_FILE } from './AgentCredentials';

const fresh = () => new AgentCredentials(mkdtempSync(join(tmpdir(), 'tooldeck-agents-')));

describe('AgentCredentials', () => {
  it('hands out NAME:SECRET once and keeps only a hash, in an owner-only file', async () => {
    const credentials = fresh();
    const credential = await credentials.create('builder');
    const [name, secret] = credential.split(':');
    expect(name).toBe('builder');
    const path = join(credentials['dataDir' as never] as string, GATEWAY_AGENTS_FILE);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(secret!);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(credentials.check({ authorization: `Bearer ${credential}` })).toEqual({ ok: true, agent: 'builder' });
    expect(credentials.check({ 'x-api-key': credential })).toEqual({ ok: true, agent: 'builder' });
  });

  it('refuses names that could not travel in a credential or a label', async () => {
    const credentials = fresh();
    for (const bad of ['', 'a:b', 'a/b', 'x'.repeat(65), 'tab\there', '-lead', 'ünï']) await expect(credentials.create(bad)).rejects.toThrow(/not a valid agent name/);
  });

  it('a replaced credential voids the old secret; a revoked one opens nothing', async () => {
    const credentials = fresh();
    const first = await credentials.create('bot');
    const second = await credentials.create('bot');
    expect(credentials.check({ authorization: `Bearer ${first}` })).toMatchObject({ ok: false, status: 403 });
    await credentials.revoke('bot');
    expect(credentials.check({ authorization: `Bearer ${second}` })).toMatchObject({ ok: false, status: 403 });
    await expect(credentials.revoke('bot')).rejects.toThrow(/No agent named "bot" has a live credential/);
  });

  it('sees a change another process made to the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-agents-'));
    const here = new AgentCredentials(dir);
    const credential = await new AgentCredentials(dir).create('other');
    expect(here.isLive('other')).toBe(true);
    await new AgentCredentials(dir).revoke('other');
    expect(here.check({ authorization: `Bearer ${credential}` })).toMatchObject({ ok: false, status: 403 });
  });

  it('a damaged file lets nobody in, and says nothing about why to the caller', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-agents-'));
    const credentials = new AgentCredentials(dir);
    const credential = await credentials.create('bot');
    writeFileSync(join(dir, GATEWAY_AGENTS_FILE), '{"agents": [oops');
    expect(credentials.check({ authorization: `Bearer ${credential}` })).toMatchObject({ ok: false, status: 403 });
  });

  it('any presented header is answered without throwing, and only the exact credential opens (property)', async () => {
    const credentials = fresh();
    const credential = await credentials.create('builder');
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string().map((s) => `Bearer ${s}`), fc.string().map((s) => `builder:${s}`), fc.string().map((s) => `Bearer builder:${s}`)), fc.option(fc.string(), { nil: undefined }), (authorization, apiKey) => {
        const verdict = credentials.check({ authorization, 'x-api-key': apiKey });
        const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? apiKey?.trim();
        if (verdict.ok) expect(presented).toBe(credential);
        else expect([401, 403]).toContain(verdict.status);
      }),
      { numRuns: 500 },
    );
  });
});

describe('AgentCredentials change listeners', () => {
  it('hear each credential created or revoked in this process once, by the time the call returns, whether the folder watch or the write tells them', async () => {
    const credentials = fresh();
    let changes = 0;
    credentials.onChange(() => changes++);
    try {
      await credentials.create('reader');
      expect(changes).toBe(1);
      await credentials.revoke('reader');
      expect(changes).toBe(2);
    } finally {
      credentials.close();
    }
  });
});
