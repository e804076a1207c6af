import { Counter, Gauge, Registry } from 'prom-client';
import { callerAgent } from '../../shared/caller';
import { isAppError } from '../../shared/errors';
import type { InvocationOutcome } from '../../shared/registry';
import type { ApprovalHolder } from '../approvals/ApprovalHolder';
import type { InvocationRequest } from '../registry/InvocationPipeline';

/**
 * The series a gateway replica serves at `/metrics`, one home for the names: the gateway writes
 * them, the console's Cluster section (readGatewayReplicas) reads them back through the API
 * server's pod proxy. Every label value is an authenticated agent's name or one of a few fixed
 * words: nothing an unauthenticated request sends becomes a series, and no tool argument, approval
 * text or credential is ever a label.
 */
export const GATEWAY_SERIES = {
  /** Counter, `agent`: tool calls started for the agent, through any door (MCP, mediated, the bus). */
  calls: 'tooldeck_gateway_calls_total',
  /** Counter, `agent`, `status` (error, timeout, denied, canceled): calls that did not end ok. */
  errors: 'tooldeck_gateway_call_errors_total',
  /** Gauge, `agent`: calls waiting for a person's approval now. */
  held: 'tooldeck_gateway_held_calls',
  /** Counter, `agent`, `decision` (see ApprovalDecision): held calls whose approval came to an end. */
  decided: 'tooldeck_gateway_approvals_decided_total',
  /** Counter, `agent`: requests refused with 429 because the agent went over its rate. */
  rateLimited: 'tooldeck_gateway_rate_limited_total',
} as const;

/**
 * How a held call's approval ended, as the `decision` label says it: approved (the call ran), or the
 * AppError step the holder rejected with — denied, expired, canceled, binding (approved for other
 * arguments or under another policy: the call did not run) — or failed (the store could not be read).
 */
export type ApprovalDecision = 'approved' | 'denied' | 'expired' | 'canceled' | 'binding' | 'failed';
const REFUSAL_STEPS = new Set(['denied', 'expired', 'canceled', 'binding']);

type Invoke = (request: InvocationRequest) => Promise<InvocationOutcome>;

/**
 * Agents' calls as Prometheus metrics, per agent, whichever door they came through (the MCP
 * gateway, mediation, RockBot's bus): every agent call goes through `countCalls`, every held call
 * through `countApprovals`. The series keep their `tooldeck_gateway_` names, which the Cluster
 * section reads per replica.
 */
export class AgentMetrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'agent'>;
  private readonly errors: Counter<'agent' | 'status'>;
  private readonly held: Gauge<'agent'>;
  private readonly decided: Counter<'agent' | 'decision'>;
  private readonly limited: Counter<'agent'>;

  constructor() {
    const registers = [this.registry];
    this.calls = new Counter({ name: GATEWAY_SERIES.calls, help: 'Tool calls started for agents through any door, per agent', labelNames: ['agent'], registers });
    this.errors = new Counter({ name: GATEWAY_SERIES.errors, help: 'Tool calls that did not end ok, per agent and status', labelNames: ['agent', 'status'], registers });
    this.held = new Gauge({ name: GATEWAY_SERIES.held, help: "Calls waiting for a person's approval now, per agent", labelNames: ['agent'], registers });
    this.decided = new Counter({ name: GATEWAY_SERIES.decided, help: 'Held calls whose approval ended, per agent and decision', labelNames: ['agent', 'decision'], registers });
    this.limited = new Counter({ name: GATEWAY_SERIES.rateLimited, help: 'Requests refused because the agent went over its rate, per agent', labelNames: ['agent'], registers });
  }

  /** `invoke`, counting each call of an agent when it starts and, when it did not end ok, when it ends. */
  countCalls(invoke: Invoke): Invoke {
    return async (request) => {
      const agent = callerAgent(request.caller);
      if (agent === undefined) return invoke(request);
      this.calls.inc({ agent });
      try {
        const outcome = await invoke(request);
        if (outcome.record.status !== 'ok') this.errors.inc({ agent, status: outcome.record.status });
        return outcome;
      } catch (error) {
        this.errors.inc({ agent, status: 'error' });
        throw error;
      }
    };
  }

  /** `holder`, counting held calls while they wait (from the moment their approval exists) and how each approval ended. */
  countApprovals(holder: ApprovalHolder): ApprovalHolder {
    return {
      hold: async (request, options = {}) => {
        const { agent } = request;
        let pending = false;
        const settle = (decision: ApprovalDecision) => {
          if (!pending) return;
          this.held.dec({ agent });
          this.decided.inc({ agent, decision });
        };
        try {
          const approval = await holder.hold(request, {
            ...options,
            onPending: (approval) => {
              if (!pending) this.held.inc({ agent });
              pending = true;
              options.onPending?.(approval);
            },
          });
          settle('approved');
          return approval;
        } catch (error) {
          settle(isAppError(error) && error.step && REFUSAL_STEPS.has(error.step) ? (error.step as ApprovalDecision) : 'failed');
          throw error;
        }
      },
    };
  }

  rateLimited(agent: string): void {
    this.limited.inc({ agent });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
