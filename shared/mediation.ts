import type { CallerVia } from './caller';

/**
 * Model mediation's record of a turn, as Clawdapus cllama's `tool_trace` lists it: what
 * `GET /history/{agent}` returns on the gateway's port and the console's Mediation section shows.
 */

/** One managed call of a round, as cllama's `tool_trace` lists it. */
export interface TracedCall {
  name: string;
  tool: string;
  arguments: Record<string, unknown>;
  result: string;
  latency_ms: number;
  service: string;
  status: 'ok' | 'error';
  status_code?: number;
  duplicate?: boolean;
  duplicate_of_round?: number;
  policy?: 'replay' | 'reject';
  /** The History row of the call (none for a replayed duplicate or a call not executed). */
  record_id?: string;
}

export interface TracedRound {
  round: number;
  wall_time_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** What the provider says the round cost (US dollars), when it says. */
  cost?: number;
  tool_calls: TracedCall[];
  note?: string;
  /** Tooldeck's own time in the round (ms, fractional): its wall time less the time spent waiting on the model and on the tools' pipeline calls. */
  overhead_ms?: number;
}

/** A mediated turn: what `GET /history/{agent}` returns and the Sessions view shows. */
export interface MediatedTurn {
  id: string;
  agent: string;
  /** Which way in ran it: the gateway's endpoints (`mediation`), the playground, an eval. */
  via: CallerVia;
  format: 'openai' | 'anthropic';
  model: string;
  at: number;
  status: 'ok' | 'error';
  error?: string;
  tool_trace: TracedRound[];
  /** Messages of earlier hidden rounds put back into this request (continuity). */
  continuity_injected?: number;
  /** The terminal answer's text as the runner got it (cut at 4,000 characters); none when it handed back native calls. */
  answer?: string;
}

/** A model provider as the console lists it (never its key). */
export interface ModelProviderView {
  name: string;
  format: 'openai' | 'anthropic';
  baseUrl: string;
  hasKey: boolean;
}
