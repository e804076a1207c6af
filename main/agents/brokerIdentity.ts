import { CallerAgentName } from '../../shared/caller';

/** Who sent a bus request, as far as the bridge may believe it; or why it cannot tell. */
export type BusIdentity =
  /** `vouched`: the name is the broker's `user_id`; otherwise it is the `rb-source` claim, taken on trust (`--trust-rb-source`). */
  | { ok: true; agent: string; vouched: boolean }
  /** `sender`: the broker user that sent a refused request, when the broker vouched for one. */
  | { ok: false; message: string; sender?: string };

/** How much of a sender's own text a refusal quotes. */
const QUOTED_CHARS = 80;

/**
 * The calling agent of a RockBot bus request (its AMQP properties and `rb-source` header, as
 * main/bus/rockbotEnvelope.ts reads them): identity, like a gateway credential's, belongs to the
 * agents domain; the bus only hands over what the broker delivered. By default it is the AMQP `user_id` property, which RabbitMQ
 * checks against the publishing connection's broker user (a publisher cannot set another user's
 * name; the broker closes its channel instead): `rb-source` must then equal it or be left out, and
 * a request without `user_id` is refused, since `rb-source` is a header anyone who may publish on
 * the exchange can write. With `trustRbSource` (for brokers where every publisher is trusted, such
 * as RockBot's own agents, whose publisher does not set `user_id`) a request without `user_id` is
 * taken as the agent its `rb-source` names. A `user_id` is never overruled by a claim, trusted or not.
 */
export function busCallerIdentity(envelope: { userId?: string; source?: string }, trustRbSource: boolean): BusIdentity {
  const { userId, source } = envelope;
  if (userId !== undefined) {
    if (!isAgentName(userId)) return { ok: false, message: `The broker user ${quote(userId)} (the message's user_id) cannot be an agent name: agent names are 1 to 200 characters without surrounding spaces.` };
    if (source !== undefined && source !== userId) {
      return { ok: false, sender: userId, message: `The request claims to come from ${quote(source)} (rb-source) but the broker vouches for ${quote(userId)} (user_id): rb-source must equal user_id or be left out.` };
    }
    return { ok: true, agent: userId, vouched: true };
  }
  if (!trustRbSource) {
    return {
      ok: false,
      message:
        'The request has no user_id: this bridge takes the calling agent only from the AMQP user_id property, which RabbitMQ checks against the publisher’s broker user (rb-source is a claim anyone may write). Publish with user_id set to your broker user, or run the bridge with --trust-rb-source if every publisher on this broker is trusted.',
    };
  }
  if (source === undefined) return { ok: false, message: 'The request names no calling agent (neither user_id nor rb-source), so no grant or policy could judge it.' };
  if (!isAgentName(source)) return { ok: false, message: `The rb-source ${quote(source)} cannot be an agent name: agent names are 1 to 200 characters without surrounding spaces.` };
  return { ok: true, agent: source, vouched: false };
}

function isAgentName(name: string): boolean {
  const parsed = CallerAgentName.safeParse(name);
  return parsed.success && parsed.data === name;
}

/** A sender's text inside a refusal: JSON-quoted (control characters escaped), cut to QUOTED_CHARS. */
function quote(text: string): string {
  return JSON.stringify(text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text);
}
