import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelPatternMatches } from '../../shared/agents';
import { ModelGrants } from './ModelGrants';

describe('ModelGrants', () => {
  it('denies every model until granted, then only the granted patterns', async () => {
    const grants = new ModelGrants(mkdtempSync(join(tmpdir(), 'tooldeck-models-')));
    expect(grants.refusal('bot', 'mock/gpt')).toMatch(/granted no models/);
    await grants.grant('bot', ['mock/*', 'openai/gpt-4o']);
    expect(grants.refusal('bot', 'mock/gpt')).toBeUndefined();
    expect(grants.refusal('bot', 'openai/gpt-4o')).toBeUndefined();
    expect(grants.refusal('bot', 'openai/gpt-4o-mini')).toMatch(/may not use openai\/gpt-4o-mini; it is granted mock\/\*, openai\/gpt-4o/);
    await expect(grants.grant('bot', ['mock/$(x)'])).rejects.toThrow(/is not a model pattern/);
    await expect(grants.grant('playground', ['*'])).rejects.toThrow(/not a valid agent name/);
  });

  it('keeps a day’s spent tokens across a restart and enforces the budget, a new day starting afresh', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-models-'));
    let day = '2026-12-08';
    const first = new ModelGrants(dir, undefined, () => day);
    await first.grant('bot', ['*'], { dailyTokens: 100 });
    first.spend('bot', 60);
    await first.flushTokens();
    const second = new ModelGrants(dir, undefined, () => day);
    expect(second.tokensToday('bot')).toBe(60);
    second.spend('bot', 50);
    expect(second.refusal('bot', 'mock/x')).toMatch(/spent its daily budget of 100 tokens/);
    day = '2026-12-09';
    expect(second.tokensToday('bot')).toBe(0);
    expect(second.refusal('bot', 'mock/x')).toBeUndefined();
  });

  it('matches * as any run of characters and nothing else as special', () => {
    expect(modelPatternMatches('mock/*', 'mock/gpt-4o')).toBe(true);
    expect(modelPatternMatches('*', 'anything/at-all')).toBe(true);
    expect(modelPatternMatches('openai/gpt-*-mini', 'openai/gpt-4o-mini')).toBe(true);
    expect(modelPatternMatches('openai/gpt-*-mini', 'openai/gpt-4o')).toBe(false);
    expect(modelPatternMatches('mock/a.b', 'mock/aXb')).toBe(false);
    expect(modelPatternMatches('a*a', 'a')).toBe(false);
  });
});
