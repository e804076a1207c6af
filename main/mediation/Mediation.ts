import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { agentCaller, type Caller } from '../../shared/caller';
import type { InvocationOutcome, ToolEntry } from '../../shared/registry';
import { canonicalJson } from '../registry/canonicalJson';
import { writeWebResponse } from '../platform/writeWebResponse';
import type { InvocationRequest } from '../registry/InvocationPipeline';
import { managedToolNames } from './managedToolNames';
import type { ModelProviders } from './ModelProviders';
import { managedResult, mediationError } from './toolResultJson';
import type { ModelToolCall, RoundResult, WireFormat } from './wireFormats';

/** Clawdapus's mediation budget (tools.json `policy`), with its defaults. */
export interface MediationBudget {
  maxRounds: number;
  timeoutPerToolMs: number;
  totalTimeoutMs: number;
}
export const DEFAULT_BUDGET: MediationBudget = { maxRounds: 8, timeoutPerToolMs: 30_000, totalTimeoutMs: 120_000 };

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
  record_id?: string;
}

export interface TracedRound {
  round: number;
  wall_time_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  tool_calls: TracedCall[];
  note?: string;
}

/** A mediated turn: what `GET /history/{agent}` returns and the Sessions view shows. */
export interface MediatedTurn {
  id: string;
  agent: string;
  format: WireFormat['format'];
  model: string;
  at: number;
  status: 'ok' | 'error';
  error?: string;
  tool_trace: TracedRound[];
}

export interface MediationDeps {
  providers: ModelProviders;
  /** The agent's managed tools: its grants, as the gateway offers them. */
  managedTools: (agent: string, caller: Caller) => ToolEntry[];
  invoke: (request: InvocationRequest) => Promise<InvocationOutcome>;
  /** How a held call waits for a person (the gateway's approvals). */
  approval: (agent: string, taskRef: string) => InvocationRequest['approval'];
  budget?: (agent: string) => MediationBudget;
  /** Duplicates in one turn: replay the earlier result (cllama's default) or reject them. */
  duplicates?: 'replay' | 'reject';
  fetch?: typeof fetch;
}

const TURNS_KEPT = 100;
const KEEP_ALIVE_MS = 250;

export class MediationError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Model mediation as Clawdapus's cllama does it: a runner points its OpenAI or Anthropic client at
 * Tooldeck; the agent's managed tools are appended to the runner's tools; the tool calls the model
 * makes to them run through the invocation pipeline as that agent (`via: mediation`), their
 * results go back to the model, and the runner gets only the terminal answer. Calls to the
 * runner's own (native) tools are returned to it unchanged.
 */
export class Mediation {
  private readonly turns = new Map<string, MediatedTurn[]>();

  constructor(private readonly deps: MediationDeps) {}

  history(agent: string): MediatedTurn[] {
    return [...(this.turns.get(agent) ?? [])];
  }

  async handle(agent: string, format: WireFormat, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    const model = typeof body.model === 'string' ? body.model : '';
    const slash = model.indexOf('/');
    const providers = await this.deps.providers.list();
    const provider = slash > 0 ? providers.find((item) => item.name === model.slice(0, slash)) : undefined;
    if (!provider) throw new MediationError(400, `The model must be <provider>/<model> with a configured provider (${providers.map((item) => item.name).join(', ') || 'none configured: tooldeck providers add'}); got "${model.slice(0, 200)}".`);
    if (provider.format !== format.format) throw new MediationError(400, `Provider ${provider.name} speaks the ${provider.format} format; this endpoint is ${format.format}'s.`);
    const apiKey = await this.deps.providers.apiKey(provider.name);
    const upstream = (payload: Record<string, unknown>, signal: AbortSignal) =>
      (this.deps.fetch ?? fetch)(format.upstreamUrl(provider.baseUrl), { method: 'POST', headers: { 'content-type': 'application/json', ...format.authHeaders(apiKey) }, body: JSON.stringify(payload), signal });

    const turnId = randomUUID();
    const caller = agentCaller(agent, 'mediation', { sessionId: turnId });
    const managed = managedToolNames(this.deps.managedTools(agent, caller));
    const request: Record<string, unknown> = { ...body, model: model.slice(slash + 1) };
    // No managed tools: the request goes through unchanged, streaming included.
    if (managed.size === 0) return writeWebResponse(await upstream(request, AbortSignal.timeout((this.deps.budget?.(agent) ?? DEFAULT_BUDGET).totalTimeoutMs)), res);

    const budget = this.deps.budget?.(agent) ?? DEFAULT_BUDGET;
    const streaming = body.stream === true;
    const turn: MediatedTurn = { id: turnId, agent, format: format.format, model, at: Date.now(), status: 'ok', tool_trace: [] };
    const total = AbortSignal.timeout(budget.totalTimeoutMs);
    const softDeadline = Date.now() + 0.9 * budget.totalTimeoutMs;
    const native = new Set(format.nativeToolNames(request));
    const working: Record<string, unknown> = { ...request, stream: false, tools: [...((request.tools as unknown[] | undefined) ?? []), ...format.toolDefinitions(managed)] };
    format.rewriteToolChoice(working, (name) => [...managed].find(([, entry]) => entry.name === name || `${entry.source.name}.${entry.toolName}` === name)?.[0]);
    const seen = new Map<string, { round: number; result: RoundResult }>();
    let duplicateStreak = 0;
    let keepAlive: NodeJS.Timeout | undefined;
    if (streaming) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      keepAlive = setInterval(() => res.write(format.keepAlive(`managed tool round ${turn.tool_trace.length + 1} waiting on model`)), KEEP_ALIVE_MS);
    }
    const finish = (response: Record<string, unknown>) => {
      clearInterval(keepAlive);
      if (streaming) {
        for (const event of format.streamEvents(response)) res.write(event);
        res.end();
      } else sendJson(res, 200, response);
    };
    try {
      for (let round = 1; ; round++) {
        const started = Date.now();
        const budgetSpent = round > budget.maxRounds || Date.now() >= softDeadline;
        const answer = await upstream(budgetSpent ? format.withoutTools(working) : working, total).catch((error: Error) => {
          throw new MediationError(502, total.aborted ? `The mediated turn ran past its total timeout (${budget.totalTimeoutMs} ms).` : `The model provider could not be reached: ${error.message}`);
        });
        const text = await answer.text();
        let response: Record<string, unknown>;
        try {
          response = JSON.parse(text) as Record<string, unknown>;
        } catch {
          throw new MediationError(502, `The model provider answered ${answer.status} with something that is not JSON.`);
        }
        if (!answer.ok) throw new MediationError(answer.status >= 500 ? 502 : answer.status, `The model provider answered ${answer.status}: ${JSON.stringify(response).slice(0, 500)}`);
        const usage = format.usage(response);
        const traced: TracedRound = { round, wall_time_ms: 0, prompt_tokens: usage.prompt, completion_tokens: usage.completion, tool_calls: [] };
        turn.tool_trace.push(traced);
        const calls = format.calls(response);
        const isManaged = (call: ModelToolCall) => managed.has(call.name) && !native.has(call.name);
        if (budgetSpent || calls.length === 0 || !calls.some(isManaged)) {
          traced.wall_time_ms = Date.now() - started;
          if (budgetSpent) traced.note = 'tool_budget_exhausted: one last call without tools';
          this.remember(turn);
          return finish(response);
        }
        const firstNative = calls.findIndex((call) => !isManaged(call));
        const lastManaged = calls.map(isManaged).lastIndexOf(true);
        if (firstNative !== -1 && firstNative < lastManaged) {
          // A native call before a managed one: running the managed one could act on what the
          // runner has not done yet. Every call is refused and the model plans again.
          traced.note = 'mixed_tool_order';
          format.appendRound(working, response, calls, calls.map((call) => ({ id: call.id, ok: false, text: mediationError('mixed_tool_order', 'Managed tools must be called before the runner’s own tools in one response; plan again.', 409) })));
          traced.wall_time_ms = Date.now() - started;
          continue;
        }
        // The managed prefix runs; a native suffix is hidden this round (the model asks for it again).
        const prefix = firstNative === -1 ? calls : calls.slice(0, firstNative);
        const results: RoundResult[] = [];
        for (const call of prefix) {
          if (keepAlive) res.write(format.keepAlive(`managed tool round ${round} executing ${call.name}`));
          const key = `${call.name}\u0000${canonicalJson(call.arguments)}`;
          const earlier = seen.get(key);
          if (earlier) {
            duplicateStreak++;
            const reject = this.deps.duplicates === 'reject';
            const text = reject ? mediationError('duplicate_tool_call', `${call.name} was already called with these arguments in round ${earlier.round}.`, 409, { tool: call.name, first_round: earlier.round, duplicate_streak: duplicateStreak, policy: 'reject', reuse_prior_call: true }) : earlier.result.text;
            results.push({ id: call.id, ok: reject ? false : earlier.result.ok, text });
            traced.tool_calls.push({ name: call.name, tool: managed.get(call.name)!.name, arguments: call.arguments, result: text, latency_ms: 0, service: managed.get(call.name)!.source.name, status: reject ? 'error' : 'ok', duplicate: true, duplicate_of_round: earlier.round });
            continue;
          }
          duplicateStreak = 0;
          const entry = managed.get(call.name)!;
          const callStarted = Date.now();
          const outcome = await this.deps.invoke({ caller, name: entry.name, arguments: call.arguments, timeoutMs: budget.timeoutPerToolMs, signal: total, approval: this.deps.approval(agent, `mediation/${agent}/${turnId}`) });
          const result = managedResult(outcome);
          const roundResult = { id: call.id, ...result };
          results.push(roundResult);
          seen.set(key, { round, result: roundResult });
          traced.tool_calls.push({ name: call.name, tool: entry.name, arguments: call.arguments, result: result.text, latency_ms: Date.now() - callStarted, service: entry.source.name, status: result.ok ? 'ok' : 'error', record_id: outcome.record.id });
        }
        format.appendRound(working, response, prefix, results);
        traced.wall_time_ms = Date.now() - started;
        // Three repeats in a row: the model is going round in circles; it is asked to finish.
        if (duplicateStreak >= 3) {
          traced.note = 'duplicate streak: asked to finish';
          const finalAnswer = await upstream(format.withoutTools(working), total);
          const final = (await finalAnswer.json()) as Record<string, unknown>;
          this.remember(turn);
          return finish(final);
        }
      }
    } catch (error) {
      clearInterval(keepAlive);
      turn.status = 'error';
      turn.error = (error as Error).message;
      this.remember(turn);
      if (streaming && res.headersSent) {
        res.write(format.errorEvent((error as Error).message));
        return void res.end();
      }
      throw error;
    }
  }

  private remember(turn: MediatedTurn) {
    const turns = this.turns.get(turn.agent) ?? [];
    turns.unshift(turn);
    if (turns.length > TURNS_KEPT) turns.length = TURNS_KEPT;
    this.turns.set(turn.agent, turns);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}
