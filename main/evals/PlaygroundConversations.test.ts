import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONVERSATIONS_FILE, CONVERSATIONS_KEPT, PlaygroundConversations } from './PlaygroundConversations';

const setup = { model: 'mock/right', compare: ['mock/wrong'], agent: 'assistant', tools: [], system: '', execute: true };

describe('PlaygroundConversations (the Playground’s saved conversations, in the data dir)', () => {
  it('saves, lists newest first, reopens, replaces by id and deletes', async () => {
    const store = new PlaygroundConversations(mkdtempSync(join(tmpdir(), 'tooldeck-conversations-')));
    await store.save({ id: 'a', title: 'first', setup, turns: [{ user: 'hi' }] });
    await store.save({ id: 'b', title: 'second', setup, turns: [] });
    expect((await store.list()).map((item) => item.id)).toEqual(['b', 'a']);
    await store.save({ id: 'a', title: 'first', setup, turns: [{ user: 'hi' }, { user: 'again' }] });
    expect(await store.list()).toEqual([expect.objectContaining({ id: 'a', turns: 2, models: ['mock/right', 'mock/wrong'] }), expect.objectContaining({ id: 'b' })]);
    expect((await store.get('a')).setup).toEqual(setup);
    await store.remove('a');
    await expect(store.get('a')).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('keeps the newest 50, refuses a conversation over 2 MiB, and survives a file that does not parse', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-conversations-'));
    const store = new PlaygroundConversations(dir);
    for (let i = 0; i < CONVERSATIONS_KEPT + 5; i++) await store.save({ id: `c${i}`, title: `c${i}`, setup, turns: [] });
    const kept = await store.list();
    expect(kept).toHaveLength(CONVERSATIONS_KEPT);
    expect(kept[0]!.id).toBe(`c${CONVERSATIONS_KEPT + 4}`);
    await expect(store.save({ id: 'huge', title: 'huge', setup, turns: ['x'.repeat(3 * 1024 * 1024)] })).rejects.toMatchObject({ code: 'InvalidInput' });
    writeFileSync(join(dir, CONVERSATIONS_FILE), '{not json');
    expect(await store.list()).toEqual([]);
  });
});
