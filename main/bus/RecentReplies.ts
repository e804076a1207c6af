/** A reply as it was sent, so a redelivered request gets it again instead of running twice. */
export interface SentReply {
  type: string;
  body: Buffer;
}

export const RECENT_REPLIES = 2000;
export const RECENT_REPLY_BYTES = 32 * 1024 * 1024;
export const RECENT_REPLY_WINDOW_MS = 10 * 60_000;

/**
 * The dedupe window of at-least-once delivery: the replies this bridge made, by the request's
 * `message_id`, for RECENT_REPLY_WINDOW_MS and at most RECENT_REPLIES of them (RECENT_REPLY_BYTES in
 * all; the oldest go first). A request redelivered after its reply went out but before its ack
 * reached the broker (the connection dropped in between) is answered from here, not run again.
 * Also the calls in flight: a redelivery while the first delivery still runs waits for its reply.
 */
export class RecentReplies {
  private readonly replies = new Map<string, { reply: SentReply; at: number }>();
  private readonly inFlight = new Map<string, Promise<SentReply | undefined>>();
  private bytes = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The reply already made for this message, or the one being made. */
  find(messageId: string): SentReply | Promise<SentReply | undefined> | undefined {
    const kept = this.replies.get(messageId);
    if (kept && this.now() - kept.at <= RECENT_REPLY_WINDOW_MS) return kept.reply;
    return this.inFlight.get(messageId);
  }

  /** Runs `make` once per message id at a time; keeps what it made. */
  async once(messageId: string, make: () => Promise<SentReply | undefined>): Promise<SentReply | undefined> {
    const running = make();
    this.inFlight.set(messageId, running);
    try {
      const reply = await running;
      if (reply) this.keep(messageId, reply);
      return reply;
    } finally {
      this.inFlight.delete(messageId);
    }
  }

  private keep(messageId: string, reply: SentReply) {
    if (reply.body.length > RECENT_REPLY_BYTES / 16) return;
    const previous = this.replies.get(messageId);
    if (previous) {
      this.replies.delete(messageId);
      this.bytes -= previous.reply.body.length;
    }
    this.replies.set(messageId, { reply, at: this.now() });
    this.bytes += reply.body.length;
    for (const [id, kept] of this.replies) {
      const expired = this.now() - kept.at > RECENT_REPLY_WINDOW_MS;
      if (!expired && this.replies.size <= RECENT_REPLIES && this.bytes <= RECENT_REPLY_BYTES) break;
      this.replies.delete(id);
      this.bytes -= kept.reply.body.length;
    }
  }
}
