import { randomUUID } from 'node:crypto';
import { operatorCaller } from '../../shared/caller';
import { AppError } from '../../shared/errors';
import type { EvalReport, EvalRun, EvalSuite } from '../../shared/evals';
import type { ToolDefinition } from '../../shared/lock';
import { managedToolNames } from '../mediation/managedToolNames';
import type { ToolEntry } from '../../shared/registry';
import { Emitter } from '../platform/Emitter';
import type { TurnInput, TurnOutput } from '../mediation/Mediation';
import type { ProviderFormat } from '../mediation/ModelProviders';
import { prepareEval, runEvalSuite, type EvalRunnerDeps } from './EvalRunner';
import { notConnectedSentence, type ConnectSources } from './sourceReadiness';

/** An `evals/*.yml` file of the workspace as the Evals view lists it. */
export interface WorkspaceEvalSuite {
  file: string;
  /** The suite when the file is valid. */
  suite?: EvalSuite;
  /** The first problem when it is not (the Resources editor shows them all). */
  problem?: string;
}

export interface EvalsDeps {
  runTurn(input: TurnInput): Promise<TurnOutput>;
  providers(): Promise<readonly { name: string; format: ProviderFormat }[]>;
  resolveTool(name: string): ToolEntry | undefined;
  /** An agent's grants as the gateway offers them (the suite's tool set when it names an agent). */
  granted(agent: string, caller: TurnInput['caller']): ToolEntry[];
  /** The workspace's eval suite files. */
  suites(): WorkspaceEvalSuite[];
  /** A tool's definition as the lockfile approves it and as the source serves it now (the drift review). */
  definitions(tool: string): { approved?: ToolDefinition; current?: ToolDefinition };
  /** Every source the console has, connected (a bounded wait) before a suite reads its tool set. */
  connectSources?: ConnectSources;
}

/** One suite run with a tool's approved definition and with its pending one, side by side. */
export interface DefinitionComparison {
  tool: string;
  suites: { file: string; suite: string; approved: EvalReport; pending: EvalReport }[];
}

export type EvalRunState = 'running' | 'done' | 'failed' | 'canceled';

/** A suite run started from the console: its live progress, then its report. */
export interface EvalRunView {
  id: string;
  file: string;
  suite: string;
  models: string[];
  state: EvalRunState;
  startedAt: number;
  /** Runs done of runs planned. */
  done: number;
  planned: number;
  /** Each run so far, by case and model (the matrix fills in as they end). */
  results: { case: string; model: string; run: EvalRun }[];
  report?: EvalReport;
  error?: string;
  /** The sources that did not connect before the run started (one sentence): some of the suite's tools may be missing. */
  notConnected?: string;
}

/** Runs kept for the view (the newest). */
const RUNS_KEPT = 20;

/**
 * Eval suites: the workspace's `evals/*.yml`, run case × model × iteration through the mediation
 * engine (`tooldeck eval`, the Evals view). Every tool call goes through the pipeline as the
 * operator via `eval`.
 */
export class Evals {
  readonly runnerDeps: EvalRunnerDeps;
  private readonly runs: EvalRunView[] = [];
  private readonly cancels = new Map<string, AbortController>();
  private readonly changes = new Emitter<EvalRunView>();

  constructor(private readonly deps: EvalsDeps) {
    this.runnerDeps = {
      runTurn: (input) => deps.runTurn(input),
      providers: () => deps.providers(),
      resolveTool: (name) => deps.resolveTool(name),
      granted: (agent) => deps.granted(agent, operatorCaller('eval')),
      ...(deps.connectSources ? { connectSources: deps.connectSources } : {}),
    };
  }

  suites(): WorkspaceEvalSuite[] {
    return this.deps.suites();
  }

  list(): EvalRunView[] {
    return this.runs.map((run) => ({ ...run, results: [...run.results] }));
  }

  get(id: string): EvalRunView {
    const run = this.runs.find((item) => item.id === id);
    if (!run) throw new AppError('NotFound', `No eval run ${id} (only the last ${RUNS_KEPT} are kept).`);
    return { ...run, results: [...run.results] };
  }

  onChange(listener: (run: EvalRunView) => void): () => void {
    return this.changes.on(listener);
  }

  /** Starts a suite of the workspace in the background; the run's view follows through onChange. */
  async start(input: { file: string; models: string[]; iterations?: number; execute?: boolean }): Promise<EvalRunView> {
    const found = this.deps.suites().find((item) => item.file === input.file);
    if (!found) throw new AppError('NotFound', `There is no eval suite ${input.file} in the workspace.`);
    if (!found.suite) throw new AppError('InvalidInput', `${input.file} is not a valid eval suite: ${found.problem ?? 'see the Resources editor'}`);
    const suite = found.suite;
    // Bad input (a model without a provider, an agent without tools) is refused here, not as a failed run.
    const prepared = await prepareEval(this.runnerDeps, suite, input.models);
    const planned = suite.cases.reduce((total, item) => total + (input.iterations ?? item.iterations ?? suite.iterations), 0) * input.models.length;
    const run: EvalRunView = {
      id: randomUUID(),
      file: input.file,
      suite: suite.name,
      models: [...input.models],
      state: 'running',
      startedAt: Date.now(),
      done: 0,
      planned,
      results: [],
      ...(prepared.notConnected.length > 0 ? { notConnected: notConnectedSentence(prepared.notConnected) } : {}),
    };
    this.runs.unshift(run);
    if (this.runs.length > RUNS_KEPT) this.runs.length = RUNS_KEPT;
    const cancel = new AbortController();
    this.cancels.set(run.id, cancel);
    this.changes.emit(run);
    void runEvalSuite(this.runnerDeps, suite, {
      prepared,
      models: input.models,
      ...(input.iterations ? { iterations: input.iterations } : {}),
      execute: input.execute !== false,
      signal: cancel.signal,
      onRun: (result) => {
        run.results.push(result);
        run.done++;
        this.changes.emit(run);
      },
    }).then(
      (report) => {
        run.report = report;
        run.state = 'done';
      },
      (error: Error) => {
        run.state = cancel.signal.aborted ? 'canceled' : 'failed';
        run.error = error.message;
      },
    ).finally(() => {
      this.cancels.delete(run.id);
      this.changes.emit(run);
    });
    return { ...run, results: [] };
  }

  /**
   * Does a definition change alter which tool a model picks? Every suite that uses the tool (in
   * its tool set, its agent's grants or its expected calls) runs twice per model: once with the
   * tool as the lockfile approved it, once as the source serves it now. Tool calls are answered
   * with the placeholder (a held definition cannot run, and only the choice is compared).
   */
  async compareDefinitions(input: { tool: string; models: string[]; iterations?: number; signal?: AbortSignal }): Promise<DefinitionComparison> {
    const entry = this.deps.resolveTool(input.tool);
    if (!entry) throw new AppError('NotFound', `${input.tool} is not in the registry (connect its source first).`);
    const { approved, current } = this.deps.definitions(input.tool);
    if (!approved || !current) throw new AppError('InvalidInput', `${input.tool} has ${approved ? 'no current' : 'no approved'} definition to compare with.`);
    await this.deps.connectSources?.(input.signal ? { signal: input.signal } : {});
    const withDefinition = (definition: ToolDefinition): ToolEntry => ({ ...entry, ...(definition.title !== undefined ? { title: definition.title } : {}), description: definition.description ?? '', inputSchema: definition.inputSchema as ToolEntry['inputSchema'] });
    const names = new Set([entry.name, `${entry.source.name}.${entry.toolName}`, entry.toolName, ...managedToolNames([entry]).keys()]);
    const suites: DefinitionComparison['suites'] = [];
    for (const { file, suite } of this.deps.suites()) {
      if (!suite) continue;
      const base = suite.tools ? suite.tools.flatMap((name) => (this.deps.resolveTool(name) ? [this.deps.resolveTool(name)!] : [])) : this.runnerDeps.granted(suite.agent!);
      const uses = base.some((item) => item.name === entry.name) || suite.cases.some((item) => item.expect.toolCalls.some((call) => names.has(call.tool)));
      if (!uses) continue;
      const others = base.filter((item) => item.name !== entry.name);
      const run = (definition: ToolDefinition) =>
        runEvalSuite(this.runnerDeps, suite, { models: input.models, ...(input.iterations ? { iterations: input.iterations } : {}), execute: false, ...(input.signal ? { signal: input.signal } : {}), tools: [...others, withDefinition(definition)] });
      suites.push({ file, suite: suite.name, approved: await run(approved), pending: await run(current) });
    }
    if (suites.length === 0) throw new AppError('NotFound', `No eval suite of the workspace uses ${input.tool} (in its tools, its agent's grants or its expected calls).`);
    return { tool: input.tool, suites };
  }

  cancel(id: string): void {
    this.cancels.get(id)?.abort();
  }

  close(): void {
    for (const cancel of this.cancels.values()) cancel.abort();
  }
}
