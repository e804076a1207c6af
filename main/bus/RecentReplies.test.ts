import { describe, expect, it } from 'vitest';
import { RECENT_REPLIES, RECENT_REPLY_WINDOW_MS, RecentReplies, requestKey } from './RecentReplies';

const reply = (text: string) => ({ type: 'RockBot.Tools.ToolInvokeResponse', body: Buffer.from(text) });

describe('RecentReplies (the redelivery dedupe window)', () => {
  it('answers a redelivered message with the reply already made, without making it again', async () => {
    const recent = new RecentReplies();
    let made = 0;
    await recent.once('m1', async () => (made++, reply('first')));
    expect(recent.find('m1')).toEqual(reply('first'));
    expect(made).toBe(1);
  });

  it('a redelivery while the first delivery still runs waits for its reply', async () => {
    const recent = new RecentReplies();
    let finish!: (value: ReturnType<typeof reply>) => void;
    const running = recent.once('m1', () => new Promise((resolve) => (finish = resolve)));
    const second = recent.find('m1');
    expect(second).toBeInstanceOf(Promise);
    finish(reply('once'));
    expect(await second).toEqual(reply('once'));
    expect(await running).toEqual(reply('once'));
  });

  it('keeps nothing for a call that made no reply (it went back to the queue)', async () => {
    const recent = new RecentReplies();
    await recent.once('m1', async () => undefined);
    expect(recent.find('m1')).toBeUndefined();
  });

  it('forgets replies past the window, and keeps at most RECENT_REPLIES', async () => {
    let now = 0;
    const recent = new RecentReplies(() => now);
    await recent.once('old', async () => reply('old'));
    now += RECENT_REPLY_WINDOW_MS + 1;
    expect(recent.find('old')).toBeUndefined();
    for (let i = 0; i < RECENT_REPLIES + 5; i++) await recent.once(`m${i}`, async () => reply(String(i)));
    expect(recent.find('m0')).toBeUndefined();
    expect(recent.find(`m${RECENT_REPLIES + 4}`)).toEqual(reply(String(RECENT_REPLIES + 4)));
  });

  it('keys a request by message id, agent, reply-to and body: a redelivery matches, a reused id from anyone else does not', () => {
    const request = { messageId: 'm1', agent: 'alice', replyTo: 'tool.result.alice', body: Buffer.from('{"toolName":"echo","arguments":"{\\"message\\":\\"a\\"}"}') };
    const key = requestKey(request);
    expect(requestKey({ ...request, body: Buffer.from(request.body) })).toBe(key);
    expect(requestKey({ ...request, agent: 'bob' })).not.toBe(key);
    expect(requestKey({ ...request, replyTo: 'tool.result.bob' })).not.toBe(key);
    expect(requestKey({ ...request, body: Buffer.from('{"toolName":"echo","arguments":"{}"}') })).not.toBe(key);
    expect(requestKey({ ...request, messageId: 'm2' })).not.toBe(key);
    // Moving a boundary between fields makes another key.
    expect(requestKey({ ...request, messageId: 'm1a', agent: 'lice' })).not.toBe(key);
  });

  it('answers another agent reusing a message id with its own reply, not the first agent’s', async () => {
    const recent = new RecentReplies();
    const alice = requestKey({ messageId: 'shared', agent: 'alice', replyTo: 'tool.result.alice', body: Buffer.from('a') });
    const bob = requestKey({ messageId: 'shared', agent: 'bob', replyTo: 'tool.result.bob', body: Buffer.from('b') });
    await recent.once(alice, async () => reply('for alice'));
    expect(recent.find(bob)).toBeUndefined();
    await recent.once(bob, async () => reply('for bob'));
    expect(recent.find(alice)).toEqual(reply('for alice'));
    expect(recent.find(bob)).toEqual(reply('for bob'));
  });
});
