import { operatorCaller } from '../../shared/caller';
import { decidingReasons } from '../../shared/policy';
import type { HeldForApproval } from '../registry/InvocationPipeline';
import { AppError } from '../../shared/errors';
import type { EvalCase, EvalCaseResult, EvalMessage, EvalReport, EvalRun, EvalRunCall, EvalSuite } from '../../shared/evals';
import type { ToolEntry } from '../../shared/registry';
import type { TracedCall, TurnInput, TurnOutput } from '../mediation/Mediation';
import type { ProviderFormat } from '../mediation/ModelProviders';
import { anthropicFormat, openAiFormat, type WireFormat } from '../mediation/wireFormats';
import { judgeRun, type ActualToolCall } from './matchers';
import { notConnectedSentence, sourcesOfTools, unconfirmedLaunchLines, type ConnectSources, type SourceNotConnected } from './sourceReadiness';

/** The agent name an eval turn runs under when the suite hand-picks its tools (no agent). */
export const EVAL_AGENT = 'evals';

/** The output tokens asked of an Anthropic-format model per round (its API requires a number). */
const ANTHROPIC_MAX_TOKENS = 1024;

/** What the runner needs: the mediation engine, the providers, the registry and the agent's grants. */
export interface EvalRunnerDeps {
  runTurn(input: TurnInput): Promise<TurnOutput>;
  /** The configured providers' names and formats. */
  providers(): Promise<readonly { name: string; format: ProviderFormat }[]>;
  /** A registry entry by name (hand-picked tools). */
  resolveTool(name: string): ToolEntry | undefined;
  /** The agent's granted tools (the suite's tool set when it names an agent). */
  granted(agent: string): ToolEntry[];
  /** Connects every source (bounded) before the tool set is read, so a tool still connecting is not called missing. */
  connectSources?: ConnectSources;
}

/** What a suite needs before any model is asked: each model's wire format, the tool set, and the sources that did not connect. */
export interface PreparedEval {
  formats: Map<string, WireFormat>;
  tools?: ToolEntry[];
  agent: string;
  notConnected: SourceNotConnected[];
}

export interface EvalRunOptions {
  models: readonly string[];
  /** Overrides every case's iterations. */
  iterations?: number;
  /** A case passes when its pass rate reaches this (default 1.0). */
  threshold?: number;
  /** False: tool calls are answered with a placeholder (`--no-execute`). */
  execute?: boolean;
  /** The tool set instead of the suite's (the drift comparison offers a tool in another definition). */
  tools?: readonly ToolEntry[];
  /** Each run as it ends (the CLI's progress, the Evals view's live matrix). */
  onRun?: (result: { case: string; model: string; run: EvalRun }) => void;
  /** Sources that did not connect while the suite can still run (some of its tools may be missing). */
  onNotConnected?: (sources: SourceNotConnected[], sentence: string) => void;
  /** prepareEval's answer when the caller already asked (the Evals view checks before it starts a run). */
  prepared?: PreparedEval;
  signal?: AbortSignal;
}

const formatOf: Record<ProviderFormat, WireFormat> = { openai: openAiFormat, anthropic: anthropicFormat };

/** The messages of a case: the suite's system prompt, then the case's prompt or messages. */
export function caseMessages(suite: Pick<EvalSuite, 'system'>, item: Pick<EvalCase, 'prompt' | 'messages'>): EvalMessage[] {
  return [...(suite.system ? [{ role: 'system' as const, content: suite.system }] : []), ...(item.messages ?? [{ role: 'user' as const, content: item.prompt ?? '' }])];
}

/** The request body of a turn in the provider's wire format. */
export function requestBody(format: ProviderFormat, messages: readonly EvalMessage[]): Record<string, unknown> {
  if (format === 'openai') return { messages: messages.map((message) => ({ ...message })) };
  const system = messages.filter((message) => message.role === 'system').map((message) => message.content).join('\n\n');
  return { max_tokens: ANTHROPIC_MAX_TOKENS, ...(system ? { system } : {}), messages: messages.filter((message) => message.role !== 'system').map((message) => ({ ...message })) };
}

/** Every name a call may be expected by: registry name, `<source>.<tool>`, the name the model saw, the bare tool name. */
export function namesOf(call: Pick<TracedCall, 'name' | 'tool' | 'service'>): string[] {
  const prefix = `${call.tool.slice(0, call.tool.indexOf(':') + 1)}${call.service}.`;
  const bare = call.tool.startsWith(prefix) ? call.tool.slice(prefix.length) : call.tool;
  return [...new Set([call.tool, `${call.service}.${bare}`, call.name, bare])];
}

/**
 * Checks what a suite needs before any model is asked, each problem as one sentence (`InvalidInput`):
 * each model's provider is configured, the hand-picked tools are in the registry, the agent has tools.
 * The sources are connected first (a bounded wait): a tool is called missing only after its source
 * had its chance, and the sentence then names the sources that did not connect.
 */
export async function prepareEval(deps: EvalRunnerDeps, suite: EvalSuite, models: readonly string[], toolSet?: readonly ToolEntry[], signal?: AbortSignal): Promise<PreparedEval> {
  if (models.length === 0) throw new AppError('InvalidInput', 'Name at least one model to evaluate (--model provider/model).');
  const providers = await deps.providers();
  const formats = new Map<string, WireFormat>();
  for (const model of models) {
    const slash = model.indexOf('/');
    const provider = slash > 0 && slash < model.length - 1 ? providers.find((item) => item.name === model.slice(0, slash)) : undefined;
    if (!provider) throw new AppError('InvalidInput', `The model "${model.slice(0, 200)}" must be <provider>/<model> with a configured provider (${providers.map((item) => item.name).join(', ') || 'none configured: tooldeck providers add'}).`);
    formats.set(model, formatOf[provider.format]);
  }
  const agent = suite.agent ?? EVAL_AGENT;
  if (toolSet) return { formats, tools: [...toolSet], agent, notConnected: [] };
  const notConnected = deps.connectSources ? await deps.connectSources({ ...(suite.tools ? { only: sourcesOfTools(suite.tools) } : {}), ...(signal ? { signal } : {}) }) : [];
  if (signal?.aborted) throw new AppError('Canceled', 'The eval run was canceled.');
  const whyNot = notConnected.length > 0 ? ` ${notConnectedSentence(notConnected)}` : '';
  // The lines of workspace servers held back for a confirmation: a host can offer to confirm them (`tooldeck eval --yes`).
  const lines = unconfirmedLaunchLines(notConnected);
  const held = lines.length > 0 ? { details: lines } : {};
  if (suite.tools) {
    const missing = suite.tools.filter((name) => !deps.resolveTool(name));
    if (missing.length > 0) throw new AppError('InvalidInput', `Suite ${suite.name}: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in the registry (names look like mcp:everything.echo).${whyNot}`, held);
    return { formats, tools: suite.tools.map((name) => deps.resolveTool(name)!), agent, notConnected };
  }
  if (deps.granted(agent).length === 0) throw new AppError('InvalidInput', `Suite ${suite.name}: agent ${agent} has no tools granted that can be called now (check its pod file or ToolPermissions).${whyNot}`, held);
  return { formats, agent, notConnected };
}

/** Runs each case × model × iteration through the mediation engine and judges each run. */
export async function runEvalSuite(deps: EvalRunnerDeps, suite: EvalSuite, options: EvalRunOptions): Promise<EvalReport> {
  const threshold = options.threshold ?? 1;
  const execute = options.execute !== false;
  const { formats, tools, agent, notConnected } = options.prepared ?? (await prepareEval(deps, suite, options.models, options.tools, options.signal));
  if (notConnected.length > 0) options.onNotConnected?.(notConnected, notConnectedSentence(notConnected));
  const started = Date.now();
  const cases: EvalCaseResult[] = [];
  for (const item of suite.cases) {
    const iterations = options.iterations ?? item.iterations ?? suite.iterations;
    for (const model of options.models) {
      const runs: EvalRun[] = [];
      for (let iteration = 1; iteration <= iterations; iteration++) {
        if (options.signal?.aborted) throw new AppError('Canceled', 'The eval run was canceled.');
        const run = await runOnce(deps, { suite, item, model, format: formats.get(model)!, tools, agent, execute, iteration, signal: options.signal });
        runs.push(run);
        options.onRun?.({ case: item.name, model, run });
      }
      const passRate = runs.filter((run) => run.passed).length / runs.length;
      cases.push({ name: item.name, model, pass_rate: passRate, passed: passRate >= threshold, runs });
    }
  }
  const all = cases.flatMap((result) => result.runs);
  return {
    suite: suite.name,
    ...(suite.agent ? { agent: suite.agent } : {}),
    models: [...options.models],
    threshold,
    executed: execute,
    started_at: new Date(started).toISOString(),
    duration_ms: Date.now() - started,
    accuracy: all.length === 0 ? 0 : all.filter((run) => run.passed).length / all.length,
    cases,
  };
}

interface OneRun {
  suite: EvalSuite;
  item: EvalCase;
  model: string;
  format: WireFormat;
  tools?: ToolEntry[];
  agent: string;
  execute: boolean;
  iteration: number;
  signal?: AbortSignal;
}

async function runOnce(deps: EvalRunnerDeps, one: OneRun): Promise<EvalRun> {
  const started = Date.now();
  const body = requestBody(one.format.format, caseMessages(one.suite, one.item));
  try {
    const { response, turn } = await deps.runTurn({
      agent: one.agent,
      caller: operatorCaller('eval'),
      format: one.format,
      model: one.model,
      body,
      ...(one.tools ? { tools: one.tools } : {}),
      execute: one.execute,
      continuity: false,
      approval: refuseHeldCall,
      ...(one.signal ? { signal: one.signal } : {}),
    });
    const traced = turn.tool_trace.flatMap((round) => round.tool_calls);
    const answer = one.format.answerText(response);
    const verdict = judgeRun(
      one.item.expect,
      traced.map((call): ActualToolCall => ({ names: namesOf(call), arguments: call.arguments })),
      answer,
    );
    return {
      iteration: one.iteration,
      passed: verdict.passed,
      failures: verdict.failures,
      tool_calls: traced.map(runCall),
      tokens: { prompt: sum(turn.tool_trace.map((round) => round.prompt_tokens)), completion: sum(turn.tool_trace.map((round) => round.completion_tokens)) },
      latency_ms: Date.now() - started,
      rounds: turn.tool_trace.length,
      ...(answer !== undefined ? { answer } : {}),
      turn_id: turn.id,
    };
  } catch (error) {
    if (one.signal?.aborted) throw new AppError('Canceled', 'The eval run was canceled.');
    // A failed turn (the provider refused, a timeout) is a failed run, not the end of the suite.
    const message = (error as Error).message;
    return { iteration: one.iteration, passed: false, failures: [`The turn failed: ${message}`], tool_calls: [], tokens: { prompt: 0, completion: 0 }, latency_ms: Date.now() - started, rounds: 0, error: message };
  }
}

/**
 * An eval does not wait for a person: a call whose verdict asks for approval is refused at once
 * (a run in CI would otherwise hang until its timeout), and the run says why.
 */
async function refuseHeldCall(held: HeldForApproval): Promise<void> {
  throw new AppError('PolicyDenied', `${held.entry.name} needs approval (${decidingReasons(held.verdict).join('; ')}); an eval does not wait for a person: evaluate with --no-execute (tool calls answered with a placeholder) or allow the call.`);
}

const runCall = (call: TracedCall): EvalRunCall => ({ tool: call.tool, name: call.name, arguments: call.arguments, status: call.status, latency_ms: call.latency_ms, result: call.result, ...(call.record_id ? { record_id: call.record_id } : {}) });
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
