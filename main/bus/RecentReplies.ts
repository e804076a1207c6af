import { createHash } from 'node:crypto';

/** A reply as it was sent, so a redelivered request gets it again instead of running twice. */
export interface SentReply {
  type: string;
  body: Buffer;
}

export const RECENT_REPLIES = 2000;
export const RECENT_REPLY_BYTES = 32 * 1024 * 1024;
export const RECENT_REPLY_WINDOW_MS = 10 * 60_000;

/** What identifies one request for the dedupe window: a redelivery repeats all four. */
export interface RequestIdentity {
  messageId: string;
  /** The calling agent as the bridge established it (the broker-validated user_id, or the trusted rb-source). */
  agent: string;
  replyTo: string;
  /** The request's body bytes as received. */
  body: Buffer;
}

/**
 * The key of a request in RecentReplies: its message id, agent, reply-to and a SHA-256 of its body.
 * A message id is chosen by its sender, so another agent (or the same one, with other arguments or
 * another reply topic) reusing it is another request, never answered with this one's reply.
 */
export function requestKey(request: RequestIdentity): string {
  const hash = createHash('sha256');
  // Each field length-prefixed, so no two different requests share a key by moving a boundary.
  for (const field of [request.messageId, request.agent, request.replyTo]) {
    const bytes = Buffer.from(field, 'utf8');
    hash.update(`${bytes.length}:`).update(bytes);
  }
  hash.update(request.body);
  return hash.digest('hex');
}

/**
 * The dedupe window of at-least-once delivery: the replies this bridge made, by the request's
 * key (requestKey: message id, agent, reply-to, body digest), for RECENT_REPLY_WINDOW_MS and at most RECENT_REPLIES of them (RECENT_REPLY_BYTES in
 * all; the oldest go first). A request redelivered after its reply went out but before its ack
 * reached the broker (the connection dropped in between) is answered from here, not run again.
 * Also the calls in flight: a redelivery while the first delivery still runs waits for its reply.
 */
export class RecentReplies {
  private readonly replies = new Map<string, { reply: SentReply; at: number }>();
  private readonly inFlight = new Map<string, Promise<SentReply | undefined>>();
  private bytes = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The reply already made for this request (its requestKey), or the one being made. */
  find(key: string): SentReply | Promise<SentReply | undefined> | undefined {
    const kept = this.replies.get(key);
    if (kept && this.now() - kept.at <= RECENT_REPLY_WINDOW_MS) return kept.reply;
    return this.inFlight.get(key);
  }

  /** Runs `make` once per request key at a time; keeps what it made. */
  async once(key: string, make: () => Promise<SentReply | undefined>): Promise<SentReply | undefined> {
    const running = make();
    this.inFlight.set(key, running);
    try {
      const reply = await running;
      if (reply) this.keep(key, reply);
      return reply;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private keep(key: string, reply: SentReply) {
    if (reply.body.length > RECENT_REPLY_BYTES / 16) return;
    const previous = this.replies.get(key);
    if (previous) {
      this.replies.delete(key);
      this.bytes -= previous.reply.body.length;
    }
    this.replies.set(key, { reply, at: this.now() });
    this.bytes += reply.body.length;
    for (const [id, kept] of this.replies) {
      const expired = this.now() - kept.at > RECENT_REPLY_WINDOW_MS;
      if (!expired && this.replies.size <= RECENT_REPLIES && this.bytes <= RECENT_REPLY_BYTES) break;
      this.replies.delete(id);
      this.bytes -= kept.reply.body.length;
    }
  }
}
