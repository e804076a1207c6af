import { describe, expect, it } from 'vitest';
import { busCallerIdentity } from './brokerIdentity';

describe('the calling agent of a bus request (busCallerIdentity)', () => {
  it('is the broker-validated user_id; an rb-source equal to it, or none, is accepted', () => {
    expect(busCallerIdentity({ userId: 'alice' }, false)).toEqual({ ok: true, agent: 'alice', vouched: true });
    expect(busCallerIdentity({ userId: 'alice', source: 'alice' }, false)).toEqual({ ok: true, agent: 'alice', vouched: true });
  });

  it('refuses an rb-source that claims another agent than user_id, trusted mode or not', () => {
    for (const trust of [false, true]) {
      const identity = busCallerIdentity({ userId: 'alice', source: 'bob' }, trust);
      expect(identity).toEqual({ ok: false, sender: 'alice', message: expect.stringContaining('claims to come from "bob" (rb-source) but the broker vouches for "alice" (user_id)') });
    }
    // RabbitMQ user names are case-sensitive, and so are agents: "Alice" is someone else.
    expect(busCallerIdentity({ userId: 'alice', source: 'Alice' }, false).ok).toBe(false);
  });

  it('refuses a request without user_id and says why and what to do, unless rb-source is trusted', () => {
    const refused = busCallerIdentity({ source: 'alice' }, false);
    expect(refused).toEqual({ ok: false, message: expect.stringMatching(/^The request has no user_id: .*--trust-rb-source/) });
    expect(busCallerIdentity({ source: 'alice' }, true)).toEqual({ ok: true, agent: 'alice', vouched: false });
    expect(busCallerIdentity({}, true)).toEqual({ ok: false, message: expect.stringMatching(/names no calling agent/) });
  });

  it('refuses names that cannot be agents, quoting them safely and briefly', () => {
    const padded = busCallerIdentity({ userId: ' alice' }, false);
    expect(padded.ok).toBe(false);
    const long = busCallerIdentity({ source: `x\n${'y'.repeat(500)}` }, true);
    expect(long.ok).toBe(false);
    if (!long.ok) {
      expect(long.message).toContain('"x\\n');
      expect(long.message.length).toBeLessThan(300);
    }
  });
});
