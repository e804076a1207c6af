import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ServerResponse } from 'node:http';
import { agentCaller, callerAgent, type Caller } from '../../shared/caller';
import type { InvocationOutcome, ToolEntry } from '../../shared/registry';
import { canonicalJson } from '../registry/canonicalJson';
import { Emitter } from '../platform/Emitter';
import { ManagedContinuity } from './ManagedContinuity';
import { pipeAnswer, postJson, type UpstreamAnswer } from './upstreamRequest';
import type { InvocationRequest } from '../registry/InvocationPipeline';
import type { AgentCall } from '../agents/Agents';
import type { ModelGrants } from '../agents/ModelGrants';
import { managedToolNames } from './managedToolNames';
import type { ModelProviders } from './ModelProviders';
import { managedResult, mediationError } from './toolResultJson';
import type { ModelToolCall, RoundResult, WireFormat } from './wireFormats';
import type { MediatedTurn, TracedRound } from '../../shared/mediation';

export type { MediatedTurn, TracedCall, TracedRound } from '../../shared/mediation';

/** Clawdapus's mediation budget (tools.json `policy`), with its defaults. */
export interface MediationBudget {
  maxRounds: number;
  timeoutPerToolMs: number;
  totalTimeoutMs: number;
}
export const DEFAULT_BUDGET: MediationBudget = { maxRounds: 8, timeoutPerToolMs: 30_000, totalTimeoutMs: 120_000 };

export interface MediationDeps {
  providers: ModelProviders;
  /** The agent's managed tools: its grants, as every door offers them (main/agents/AgentGrants). */
  managedTools: (agent: string, caller: Caller) => ToolEntry[];
  /** An agent's call (main/agents/Agents.invoke: the pipeline, the one approval hook); the operator's turns pass straight through it. */
  invoke: (call: AgentCall) => Promise<InvocationOutcome>;
  /** Which models an agent may use, deny by default, and its daily token budget (main/agents/ModelGrants). */
  models?: Pick<ModelGrants, 'refusal' | 'spend'>;
  /** Whether the agent's credential still opens the door: a revoked one ends its turn at the next round. */
  isLive?: (agent: string) => boolean;
  /** The agent's mediation settings (its Clawdapus `tools-policy`); cllama's defaults when absent. */
  settings?: (agent: string) => Partial<MediationSettings>;
}

/** Clawdapus's budget plus what to do with a repeated call in one turn: replay the earlier result (cllama's default) or reject it. */
export interface MediationSettings extends MediationBudget {
  duplicates: 'replay' | 'reject';
}

/** What the playground and evals hand the engine; the gateway's HTTP endpoints build one per request. */
export interface TurnInput {
  /** The agent the turn is for: its tools by default, its continuity, its history of turns. */
  agent: string;
  caller: Caller;
  format: WireFormat;
  /** `<provider>/<model>`. */
  model: string;
  /** The request as the runner wrote it (its `model` is replaced by the provider's own name). */
  body: Record<string, unknown>;
  /** The tools offered to the model instead of the agent's managed tools (the playground's tool set). */
  tools?: readonly ToolEntry[];
  /** False: tool calls are answered with a placeholder instead of running (evals of destructive tools). */
  execute?: boolean;
  /** How a call whose verdict asks a person is decided in this turn, instead of the approvals book (the playground asks inline). */
  approval?: InvocationRequest['approval'];
  /** False: the agent's hidden rounds are neither put back into this turn nor kept from it (evals and the playground must not leak into the agent's real conversations, nor it into them). */
  continuity?: boolean;
  /** A line for each step (`managed tool round N executing <tool>`), for keep-alives and live views. */
  onProgress?: (line: string) => void;
  /** Each round as it finishes (the playground draws tool cards from these). */
  onRound?: (round: TracedRound) => void;
  signal?: AbortSignal;
}

export interface TurnOutput {
  /** The terminal response in the wire format (text, or native tool calls for the runner). */
  response: Record<string, unknown>;
  turn: MediatedTurn;
}

/** Placeholder result for a call not executed (`tooldeck eval --no-execute`). */
export const NOT_EXECUTED = JSON.stringify({ ok: true, status_code: 200, data: 'Not executed: this evaluation answers tool calls without running them.' });

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

interface Upstream {
  /** The model's name at the provider (the part after `<provider>/`). */
  model: string;
  /** `body`: the request, already serialized. */
  call(body: string, signal: AbortSignal): Promise<UpstreamAnswer>;
}

/**
 * Model mediation as Clawdapus's cllama does it: a runner points its OpenAI or Anthropic client at
 * Tooldeck; the agent's managed tools are appended to the runner's tools; the tool calls the model
 * makes to them run through the invocation pipeline as that agent (`via: mediation`), their
 * results go back to the model, and the runner gets only the terminal answer. Calls to the
 * runner's own (native) tools are returned to it unchanged.
 *
 * `runTurn` is the engine (no HTTP in it): the gateway's endpoints, the playground and evals all
 * run their turns through it, so what one shows is what the others get.
 */
export class Mediation {
  private readonly turns = new Map<string, MediatedTurn[]>();
  private readonly continuity = new ManagedContinuity();
  private readonly turnsChanged = new Emitter<MediatedTurn>();

  constructor(private readonly deps: MediationDeps) {}

  /** The agent's own mediated turns (never the operator's Playground or eval turns, which live in their own sections). */
  history(agent: string): MediatedTurn[] {
    return [...(this.turns.get(agent) ?? [])];
  }

  /** Every agent's recent mediated turns, newest first (the Mediation section). */
  allTurns(): MediatedTurn[] {
    return [...this.turns.values()].flat().sort((a, b) => b.at - a.at);
  }

  onTurn(listener: (turn: MediatedTurn) => void): () => void {
    return this.turnsChanged.on(listener);
  }

  settingsFor(agent: string): MediationSettings {
    return { ...DEFAULT_BUDGET, duplicates: 'replay', ...this.deps.settings?.(agent) };
  }

  /** The provider of `<provider>/<model>`: a 400 naming the configured ones when there is none. */
  private async upstreamFor(model: string, format: WireFormat): Promise<Upstream> {
    const slash = model.indexOf('/');
    const providers = await this.deps.providers.list();
    const provider = slash > 0 ? providers.find((item) => item.name === model.slice(0, slash)) : undefined;
    if (!provider) throw new MediationError(400, `The model must be <provider>/<model> with a configured provider (${providers.map((item) => item.name).join(', ') || 'none configured: tooldeck providers add'}); got "${model.slice(0, 200)}".`);
    if (provider.format !== format.format) throw new MediationError(400, `Provider ${provider.name} speaks the ${provider.format} format; this endpoint is ${format.format}'s.`);
    const apiKey = await this.deps.providers.apiKey(provider.name);
    const url = format.upstreamUrl(provider.baseUrl);
    const headers = { 'content-type': 'application/json', ...format.authHeaders(apiKey) };
    return { model: model.slice(slash + 1), call: (body, signal) => postJson(url, headers, body, signal) };
  }

  /** The gateway's endpoint: pass-through when the agent has no managed tools, else a mediated turn (re-streamed when asked). */
  async handle(agent: string, format: WireFormat, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    const model = typeof body.model === 'string' ? body.model : '';
    const caller = agentCaller(agent, 'mediation');
    // Deny by default: an agent spends a provider's key only on the models granted to it.
    const refused = this.deps.models?.refusal(agent, model);
    if (refused) throw new MediationError(403, refused);
    if (this.deps.managedTools(agent, caller).length === 0) {
      // No managed tools: the request goes through unchanged, streaming included.
      const upstream = await this.upstreamFor(model, format);
      const answer = await upstream.call(JSON.stringify({ ...body, model: upstream.model }), AbortSignal.timeout(this.settingsFor(agent).totalTimeoutMs)).catch((error: Error) => {
        throw new MediationError(502, `The model provider could not be reached: ${error.message}`);
      });
      return pipeAnswer(answer, res);
    }
    const streaming = body.stream === true;
    if (!streaming) {
      const { response } = await this.runTurn({ agent, caller, format, model, body });
      return sendJson(res, 200, response);
    }
    // Streaming: the provider is checked before the 200 goes out, so a bad model is still a plain 400.
    await this.upstreamFor(model, format);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    let line = 'managed tool round 1 waiting on model';
    const keepAlive = setInterval(() => res.write(format.keepAlive(line)), KEEP_ALIVE_MS);
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    try {
      const { response } = await this.runTurn({ agent, caller, format, model, body, signal: gone.signal, onProgress: (next) => {
        line = next;
        res.write(format.keepAlive(next));
      } });
      clearInterval(keepAlive);
      for (const event of format.streamEvents(response)) res.write(event);
    } catch (error) {
      clearInterval(keepAlive);
      res.write(format.errorEvent((error as Error).message));
    }
    res.end();
  }

  /** One mediated turn: the model is asked, managed calls run, until it answers (see the class comment). */
  async runTurn(input: TurnInput): Promise<TurnOutput> {
    const { agent, format } = input;
    const upstream = await this.upstreamFor(input.model, format);
    const settings = this.settingsFor(agent);
    const turnId = randomUUID();
    const caller: Caller = { ...input.caller, sessionId: input.caller.sessionId ?? turnId };
    // An agent's own turn (not the operator's Playground or evals): its grants and credential are judged again each round.
    const agentTurn = callerAgent(caller) !== undefined;
    if (agentTurn) {
      const refused = this.deps.models?.refusal(agent, input.model);
      if (refused) throw new MediationError(403, refused);
    }
    let managed = managedToolNames(input.tools ?? this.deps.managedTools(agent, caller));
    const turn: MediatedTurn = { id: turnId, agent, via: caller.via, format: format.format, model: input.model, at: Date.now(), status: 'ok', tool_trace: [] };
    const total = AbortSignal.any([AbortSignal.timeout(settings.totalTimeoutMs), ...(input.signal ? [input.signal] : [])]);
    const softDeadline = Date.now() + 0.9 * settings.totalTimeoutMs;
    const request: Record<string, unknown> = { ...input.body, model: upstream.model };
    // The hidden rounds of this agent's earlier turns go back before the answers they led to.
    const runnerMessages = Array.isArray(request.messages) ? request.messages : [];
    // Kept per agent and wire format: one format's messages never go into the other's request.
    const continuityKey = `${format.format}:${agent}`;
    const withContinuity = input.continuity === false ? undefined : this.continuity.inject(continuityKey, runnerMessages, (message) => format.visibleAssistantText(message));
    if (withContinuity) {
      request.messages = withContinuity;
      turn.continuity_injected = withContinuity.length - runnerMessages.length;
    }
    const visibleLength = Array.isArray(request.messages) ? request.messages.length : 0;
    const native = new Set(format.nativeToolNames(request));
    const runnerTools = (request.tools as unknown[] | undefined) ?? [];
    const working: Record<string, unknown> & { messages?: unknown[] } = { ...request, stream: false, tools: [...runnerTools, ...format.toolDefinitions(managed)] };
    format.rewriteToolChoice(working, (name) => [...managed].find(([, entry]) => entry.name === name || `${entry.source.name}.${entry.toolName}` === name)?.[0]);
    const seen = new Map<string, { round: number; result: RoundResult }>();
    let duplicateStreak = 0;
    // Where a round's time goes: waiting on the model and on the pipeline (the tools) is not
    // mediation's own; `overhead_ms` is the rest (what `npm run bench -- mediation` reads).
    let waitedMs = 0;
    const ask = async (payload: Record<string, unknown>, round: number) => {
      input.onProgress?.(`managed tool round ${round} waiting on model`);
      const serialized = JSON.stringify(payload);
      const asked = performance.now();
      let text: string;
      let answer: UpstreamAnswer;
      try {
        answer = await upstream.call(serialized, total).catch((error: Error) => {
          throw new MediationError(502, total.aborted ? (input.signal?.aborted ? 'The turn was canceled.' : `The mediated turn ran past its total timeout (${settings.totalTimeoutMs} ms).`) : `The model provider could not be reached: ${error.message}`);
        });
        text = await answer.text().catch((error: Error) => {
          throw new MediationError(502, total.aborted ? `The mediated turn ran past its total timeout (${settings.totalTimeoutMs} ms) while the model provider was answering.` : `The model provider's answer could not be read: ${error.message}.`);
        });
      } finally {
        waitedMs += performance.now() - asked;
      }
      let response: Record<string, unknown>;
      try {
        response = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new MediationError(502, `The model provider answered ${answer.status} with something that is not JSON.`);
      }
      if (!answer.ok) throw new MediationError(answer.status >= 500 ? 502 : answer.status, `The model provider answered ${answer.status}: ${JSON.stringify(response).slice(0, 500)}`);
      return response;
    };
    const finish = (response: Record<string, unknown>): TurnOutput => {
      // What the runner never saw, kept for its next request (continuity).
      const hidden = (working.messages ?? []).slice(visibleLength);
      const answer = format.answerText(response);
      if (input.continuity !== false) this.continuity.observe(continuityKey, answer, hidden);
      if (answer !== undefined) turn.answer = answer.slice(0, 4000);
      this.remember(turn);
      return { response, turn };
    };
    try {
      for (let round = 1; ; round++) {
        if (agentTurn && round > 1) {
          // Judged before each round, as the pipeline judges each call: a revoked credential ends the
          // turn; a grant taken away is no longer offered to the model.
          if (this.deps.isLive && !this.deps.isLive(agent)) throw new MediationError(403, `The credential of agent ${agent} was revoked; the turn ended at round ${round}.`);
          if (!input.tools) {
            managed = managedToolNames(this.deps.managedTools(agent, caller));
            working.tools = [...runnerTools, ...format.toolDefinitions(managed)];
          }
        }
        const started = Date.now();
        const startedPrecise = performance.now();
        waitedMs = 0;
        const overhead = () => Math.round((performance.now() - startedPrecise - waitedMs) * 1000) / 1000;
        const budgetSpent = round > settings.maxRounds || Date.now() >= softDeadline;
        const response = await ask(budgetSpent ? format.withoutTools(working) : working, round);
        const usage = format.usage(response);
        if (agentTurn) this.deps.models?.spend(agent, (usage.prompt ?? 0) + (usage.completion ?? 0));
        const traced: TracedRound = { round, wall_time_ms: 0, prompt_tokens: usage.prompt, completion_tokens: usage.completion, ...(usage.cost !== undefined ? { cost: usage.cost } : {}), tool_calls: [] };
        turn.tool_trace.push(traced);
        const calls = format.calls(response);
        const isManaged = (call: ModelToolCall) => managed.has(call.name) && !native.has(call.name);
        if (budgetSpent || calls.length === 0 || !calls.some(isManaged)) {
          traced.wall_time_ms = Date.now() - started;
          traced.overhead_ms = overhead();
          if (budgetSpent) traced.note = `tool_budget_exhausted: ${round > settings.maxRounds ? `max_rounds (${settings.maxRounds})` : 'the soft deadline'} reached; one last call without tools`;
          input.onRound?.(traced);
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
          traced.overhead_ms = overhead();
          input.onRound?.(traced);
          continue;
        }
        // The managed prefix runs; a native suffix is hidden this round (the model asks for it again).
        const prefix = firstNative === -1 ? calls : calls.slice(0, firstNative);
        if (firstNative !== -1) traced.note = `native calls held back this round: ${calls.slice(firstNative).map((call) => call.name).join(', ')}`;
        const results: RoundResult[] = [];
        for (const call of prefix) {
          input.onProgress?.(`managed tool round ${round} executing ${call.name}`);
          const entry = managed.get(call.name)!;
          const key = `${call.name}\u0000${canonicalJson(call.arguments)}`;
          const earlier = seen.get(key);
          if (earlier) {
            duplicateStreak++;
            const reject = settings.duplicates === 'reject';
            const text = reject ? mediationError('duplicate_tool_call', `${call.name} was already called with these arguments in round ${earlier.round}.`, 409, { tool: call.name, first_round: earlier.round, duplicate_count: duplicateStreak, duplicate_streak: duplicateStreak, policy: 'reject', reuse_prior_call: true }) : earlier.result.text;
            results.push({ id: call.id, ok: reject ? false : earlier.result.ok, text });
            traced.tool_calls.push({ name: call.name, tool: entry.name, arguments: call.arguments, result: text, latency_ms: 0, service: entry.source.name, status: reject ? 'error' : 'ok', duplicate: true, duplicate_of_round: earlier.round, policy: settings.duplicates });
            continue;
          }
          duplicateStreak = 0;
          const callStarted = Date.now();
          const invoked = performance.now();
          let result: { ok: boolean; text: string };
          let recordId: string | undefined;
          if (input.execute === false) result = { ok: true, text: NOT_EXECUTED };
          else {
            const held = input.approval ? { approval: input.approval } : { hold: { taskRef: `mediation/${agent}/${turnId}`, signal: total } };
            const outcome = await this.deps.invoke({ caller, name: entry.name, arguments: call.arguments, timeoutMs: settings.timeoutPerToolMs, signal: total, ...held });
            result = managedResult(outcome);
            recordId = outcome.record.id;
          }
          waitedMs += performance.now() - invoked;
          const roundResult = { id: call.id, ...result };
          results.push(roundResult);
          seen.set(key, { round, result: roundResult });
          traced.tool_calls.push({ name: call.name, tool: entry.name, arguments: call.arguments, result: result.text, latency_ms: Date.now() - callStarted, service: entry.source.name, status: result.ok ? 'ok' : 'error', ...(recordId ? { record_id: recordId } : {}) });
        }
        format.appendRound(working, response, prefix, results);
        traced.wall_time_ms = Date.now() - started;
        traced.overhead_ms = overhead();
        input.onRound?.(traced);
        // Three repeats in a row: the model is going round in circles; it is asked to finish.
        if (duplicateStreak >= 3) {
          const final = await ask(format.withoutTools(working), round + 1);
          const usage = format.usage(final);
          const last: TracedRound = { round: round + 1, wall_time_ms: 0, prompt_tokens: usage.prompt, completion_tokens: usage.completion, tool_calls: [], note: 'duplicate streak of 3: asked to finish without tools' };
          turn.tool_trace.push(last);
          input.onRound?.(last);
          return finish(final);
        }
      }
    } catch (error) {
      turn.status = 'error';
      turn.error = (error as Error).message;
      this.remember(turn);
      throw error;
    }
  }

  private remember(turn: MediatedTurn) {
    // The operator's Playground and eval turns are kept by the Playground and the eval runs, never under an agent's name.
    if (turn.via !== 'mediation') return;
    const turns = this.turns.get(turn.agent) ?? [];
    turns.unshift(turn);
    if (turns.length > TURNS_KEPT) turns.length = TURNS_KEPT;
    this.turns.set(turn.agent, turns);
    this.turnsChanged.emit(turn);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}
