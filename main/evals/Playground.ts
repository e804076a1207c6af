import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Document, isMap, isSeq, parseDocument } from 'yaml';
import { operatorCaller } from '../../shared/caller';
import { AppError } from '../../shared/errors';
import { EVAL_SUITE_FILE, type EvalCase, type EvalMessage } from '../../shared/evals';
import { decidingReasons } from '../../shared/policy';
import type { HeldForApproval } from '../registry/InvocationPipeline';
import type { ToolEntry } from '../../shared/registry';
import type { MediatedTurn, TracedRound, TurnInput, TurnOutput } from '../mediation/Mediation';
import type { ProviderFormat } from '../mediation/ModelProviders';
import { anthropicFormat, openAiFormat } from '../mediation/wireFormats';
import { namesOf, requestBody } from './EvalRunner';
import { loadEvalSuite } from './loadEvalSuite';
import { PlaygroundConversations } from './PlaygroundConversations';
import { notConnectedSentence, sourcesOfTools, type ConnectSources } from './sourceReadiness';

/** The agent name a playground turn runs under when its tools are hand-picked. */
export const PLAYGROUND_AGENT = 'playground';

/** What the Playground sends: a model, the conversation so far, and the tool set. */
export interface PlaygroundTurnInput {
  model: string;
  system?: string;
  /** The conversation, ending with the user's new message. */
  messages: EvalMessage[];
  /** The tool set: an agent's grants… */
  agent?: string;
  /** …or hand-picked registry entries (these win when both are given). */
  tools?: string[];
  execute?: boolean;
  /** The conversation's id: its calls share it as their session in History. */
  conversationId: string;
}

export type PlaygroundEvent =
  | { type: 'progress'; line: string }
  /** A call whose verdict asks a person: the operator approves or denies it inline (`decide`). */
  | { type: 'approval'; id: string; tool: string; arguments: Record<string, unknown>; reasons: string[] }
  | { type: 'decided'; id: string; approved: boolean }
  | { type: 'round'; round: TracedRound }
  | { type: 'answer'; answer?: string; turn: MediatedTurn; latency_ms: number; tokens: { prompt: number; completion: number }; cost?: number };

export interface PlaygroundDeps {
  /** Where saved conversations are kept. */
  dataDir: string;
  runTurn(input: TurnInput): Promise<TurnOutput>;
  providers(): Promise<readonly { name: string; format: ProviderFormat }[]>;
  resolveTool(name: string): ToolEntry | undefined;
  workspace: {
    dir: string;
    read(path: string): { version: string | null; text?: string };
    save(input: { path: string; text: string; expectedVersion: string | null }): Promise<unknown>;
  };
  /** Every source the console has, connected (a bounded wait) before a turn reads its tool set. */
  connectSources?: ConnectSources;
}

/** A case a playground turn becomes: its prompt, and the calls the model made as the expectation. */
export interface SaveCaseInput {
  file: string;
  caseName: string;
  prompt: string;
  toolCalls: { tool: string; name: string; service?: string; arguments: Record<string, unknown> }[];
  /** The suite's tool set when the file is new. */
  agent?: string;
  tools?: string[];
}

/**
 * The Playground: a conversation with a model over a tool set, one turn at a time, on the
 * mediation engine (the same loop agents get behind the gateway); every tool call goes through the
 * pipeline as the operator via `playground`. A turn can be saved as an eval case.
 */
export class Playground {
  /** Calls waiting for the operator's decision, by the id their approval event carried. */
  private readonly waiting = new Map<string, { approve(): void; deny(reason: Error): void }>();
  /** Conversations saved to come back to. */
  readonly conversations: PlaygroundConversations;

  constructor(private readonly deps: PlaygroundDeps) {
    this.conversations = new PlaygroundConversations(deps.dataDir);
  }

  /** The operator's decision on a call a turn holds (approve: it runs, judged again first; deny: it ends as denied). */
  decide(id: string, approve: boolean): void {
    const held = this.waiting.get(id);
    if (!held) throw new AppError('NotFound', 'That call is no longer waiting (its turn ended or it was decided).');
    if (approve) held.approve();
    else held.deny(new AppError('PolicyDenied', 'Denied by the operator in the Playground.'));
  }

  /** Asks inline: the turn's stream carries the call, and the call waits until `decide` (or the turn ends). */
  private askInline(emit: (event: PlaygroundEvent) => void, signal?: AbortSignal) {
    return (held: HeldForApproval) =>
      new Promise<void>((resolve, reject) => {
        const id = randomUUID();
        const done = (approved: boolean) => {
          this.waiting.delete(id);
          signal?.removeEventListener('abort', canceled);
          emit({ type: 'decided', id, approved });
        };
        const canceled = () => {
          done(false);
          reject(new AppError('Canceled', 'The turn ended while the call waited for a decision.'));
        };
        this.waiting.set(id, {
          approve: () => {
            done(true);
            resolve();
          },
          deny: (reason) => {
            done(false);
            reject(reason);
          },
        });
        if (signal?.aborted) return canceled();
        signal?.addEventListener('abort', canceled, { once: true });
        emit({ type: 'approval', id, tool: held.entry.name, arguments: held.arguments, reasons: decidingReasons(held.verdict) });
      });
  }

  async turn(input: PlaygroundTurnInput, emit: (event: PlaygroundEvent) => void, signal?: AbortSignal): Promise<void> {
    const slash = input.model.indexOf('/');
    const providers = await this.deps.providers();
    const provider = slash > 0 && slash < input.model.length - 1 ? providers.find((item) => item.name === input.model.slice(0, slash)) : undefined;
    if (!provider) throw new AppError('InvalidInput', `The model must be <provider>/<model> with a configured provider (${providers.map((item) => item.name).join(', ') || 'none configured: tooldeck providers add'}); got "${input.model.slice(0, 200)}".`);
    const picked = input.tools && input.tools.length > 0 ? input.tools : undefined;
    if (!picked && !input.agent) throw new AppError('InvalidInput', 'Pick the tools: an agent (its grants) or registry entries.');
    // A source still connecting (the console just started, a server is being launched) is waited for, not taken as missing.
    const notConnected = (await this.deps.connectSources?.({ ...(picked ? { only: sourcesOfTools(picked) } : {}), ...(signal ? { signal } : {}) })) ?? [];
    if (notConnected.length > 0) emit({ type: 'progress', line: notConnectedSentence(notConnected) });
    let tools: ToolEntry[] | undefined;
    if (picked) {
      const missing = picked.filter((name) => !this.deps.resolveTool(name));
      if (missing.length > 0) throw new AppError('InvalidInput', `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in the registry.${notConnected.length > 0 ? ` ${notConnectedSentence(notConnected)}` : ''}`);
      tools = picked.map((name) => this.deps.resolveTool(name)!);
    }
    const format = provider.format === 'openai' ? openAiFormat : anthropicFormat;
    const messages = [...(input.system ? [{ role: 'system' as const, content: input.system }] : []), ...input.messages];
    const started = Date.now();
    const { response, turn } = await this.deps.runTurn({
      agent: tools ? PLAYGROUND_AGENT : input.agent!,
      caller: operatorCaller('playground', { sessionId: input.conversationId }),
      format,
      model: input.model,
      body: requestBody(provider.format, messages),
      ...(tools ? { tools } : {}),
      execute: input.execute !== false,
      continuity: false,
      onRound: (round) => emit({ type: 'round', round }),
      // `managed tool round 2 executing everything_echo`: what the turn waits on (a model, a tool, a person's approval).
      onProgress: (line) => emit({ type: 'progress', line }),
      approval: this.askInline(emit, signal),
      ...(signal ? { signal } : {}),
    });
    const answer = format.answerText(response);
    emit({
      type: 'answer',
      ...(answer !== undefined ? { answer } : {}),
      turn,
      latency_ms: Date.now() - started,
      tokens: { prompt: turn.tool_trace.reduce((sum, round) => sum + round.prompt_tokens, 0), completion: turn.tool_trace.reduce((sum, round) => sum + round.completion_tokens, 0) },
      ...(turn.tool_trace.some((round) => round.cost !== undefined) ? { cost: turn.tool_trace.reduce((sum, round) => sum + (round.cost ?? 0), 0) } : {}),
    });
  }

  /** Adds the turn as a case to an eval suite of the workspace (the file is made when it is new); returns the case's name. */
  async saveCase(input: SaveCaseInput): Promise<{ file: string; caseName: string }> {
    if (!EVAL_SUITE_FILE.test(input.file)) throw new AppError('InvalidInput', `Eval suites live in the workspace's evals/ folder as .yml files (e.g. evals/playground.yml), not ${input.file}.`);
    const existing = this.deps.workspace.read(input.file);
    const document = existing.text !== undefined ? parseDocument(existing.text) : parseDocument(newSuiteText(input));
    const cases = document.get('cases');
    if (!isSeq(cases)) throw new AppError('InvalidInput', `${input.file} has no cases list to add to; fix it in Resources first.`);
    cases.flow = false;
    const taken = new Set(cases.items.map((item) => (isMap(item) ? String(item.get('name')) : '')));
    let caseName = input.caseName.trim() || 'case';
    for (let n = 2; taken.has(caseName); n++) caseName = `${input.caseName.trim()} (${n})`;
    cases.items.push(document.createNode(evalCaseFromTurn(caseName, input.prompt, input.toolCalls)));
    const text = document.toString({ lineWidth: 0 });
    loadEvalSuite(text, input.file); // what is written must read back as a suite
    await mkdir(dirname(join(this.deps.workspace.dir, input.file)), { recursive: true, mode: 0o700 });
    await this.deps.workspace.save({ path: input.file, text, expectedVersion: existing.version });
    return { file: input.file, caseName };
  }
}

/** A case from a turn: its prompt, and the calls made as the expected calls, in order, with their arguments. */
export function evalCaseFromTurn(name: string, prompt: string, calls: SaveCaseInput['toolCalls']): EvalCase {
  return {
    name,
    prompt,
    expect: {
      toolCalls: calls.map((call) => ({ tool: call.service ? namesOf({ name: call.name, tool: call.tool, service: call.service })[1]! : call.tool, arguments: call.arguments })),
      order: 'strict',
      argumentMatching: 'partial',
    },
  };
}

function newSuiteText(input: SaveCaseInput): string {
  const name = input.file.replace(/^evals\//, '').replace(/\.ya?ml$/, '');
  const toolSet = input.tools && input.tools.length > 0 ? { tools: input.tools } : { agent: input.agent ?? PLAYGROUND_AGENT };
  return new Document({ name, ...toolSet, cases: [] }).toString({ lineWidth: 0 });
}
