import { AsyncLocalStorage } from 'node:async_hooks';
import { A2aOutgoingMessage, type A2aEvent, type A2aSendResult } from '../../shared/a2a';
import type { Caller } from '../../shared/caller';
import { AppError } from '../../shared/errors';
import type { InvocationOutcome, ToolEntry, ToolResult } from '../../shared/registry';
import { startCancellableRun } from '../platform/CancellableRun';
import { createToolEntry } from '../registry/createToolEntry';
import type { InvocationPipeline } from '../registry/InvocationPipeline';
import { DEFAULT_MAX_TOTAL_TIMEOUT_MS } from '../registry/policy/EffectivePolicy';
import type { ExecutionContext, ToolExecutor } from '../registry/types';
import type { A2aAgentService } from './A2aAgentService';

/**
 * A free-form conversation turn (the Agents view, `tooldeck a2a send`) names no skill, so it is a
 * call of the agent's own A2A operation: every saved agent has two registry entries besides its
 * skills, `a2a:<agent>.SendMessage` and `a2a:<agent>.SendStreamingMessage`. A turn is an invocation
 * of one of them through the pipeline, so lookup, validation, policy (a ToolPermission on
 * `a2a:<agent>.*` or `a2a:<agent>.Send*` denies or asks for turns as for skills), the lock, the one
 * recorder (history, metrics, live feed) and the call's trace all apply as to any entry. An agent
 * addressed by URL rather than saved has its entries only for the turn (see A2aTurns.send).
 */
export const TURN_TOOLS = { send: 'SendMessage', stream: 'SendStreamingMessage' } as const;

export function isTurnEntry(entry: Pick<ToolEntry, 'source' | 'toolName'>): boolean {
  return entry.source.kind === 'a2a' && (entry.toolName === TURN_TOOLS.send || entry.toolName === TURN_TOOLS.stream);
}

/** The arguments of a turn entry: the message (text or parts), and the conversation or task it continues. */
const TURN_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    text: { type: 'string', description: 'The message text.' },
    parts: { type: 'array', minItems: 1, description: 'The message as A2A parts (instead of text).' },
    metadata: { type: 'object' },
    contextId: { type: 'string', description: 'The A2A contextId of an earlier answer: the message joins that context.' },
    taskId: { type: 'string', description: 'Continue this task (answer an INPUT_REQUIRED question).' },
  },
} as const;

/** An agent's two turn entries. An agent's turn may work for long: its timeout is the whole-call limit (streamed updates restart it). */
export function turnEntries(agent: string): ToolEntry[] {
  const source = { kind: 'a2a' as const, name: agent };
  const runtime = { timeout: DEFAULT_MAX_TOTAL_TIMEOUT_MS };
  return [
    createToolEntry({
      source,
      tool: { name: TURN_TOOLS.send, title: 'Send a message', description: `Send A2A agent ${agent} a message and wait for its answer.`, inputSchema: TURN_INPUT_SCHEMA, annotations: { openWorldHint: true } },
      config: { runtime },
    }),
    createToolEntry({
      source,
      tool: { name: TURN_TOOLS.stream, title: 'Stream a message', description: `Send A2A agent ${agent} a message and follow its updates until the task ends.`, inputSchema: TURN_INPUT_SCHEMA, annotations: { openWorldHint: true } },
      config: { runtime },
    }),
  ];
}

/**
 * What a turn's sender hears besides the ToolResult: the agent's whole answer and its streamed
 * events. It travels with the call's async context, since the pipeline passes only arguments to an
 * executor; a turn entry called some other way (`tooldeck call`, a collection) has none and gets
 * the ToolResult alone.
 */
interface TurnListener {
  answer?: A2aSendResult;
  onEvent?(event: A2aEvent): void;
  cancelOnAbort: boolean;
  /** The sender's own limit: the service then cancels the task at the agent when it runs out, not only stops waiting. */
  timeoutMs?: number;
}
const turnListener = new AsyncLocalStorage<TurnListener>();

/** Runs an agent's turn entries: one SendMessage or SendStreamingMessage per call. */
export class A2aTurnExecutor implements ToolExecutor {
  constructor(
    private readonly agents: A2aAgentService,
    private readonly agent: string,
  ) {}

  async execute(entry: ToolEntry, args: Record<string, unknown>, ctx: ExecutionContext): Promise<ToolResult> {
    const { message, contextId, taskId } = turnArguments(args);
    const listener = turnListener.getStore();
    const continuation = { ...(contextId ? { contextId } : {}), ...(taskId ? { taskId } : {}), ...(listener?.timeoutMs !== undefined ? { timeoutMs: listener.timeoutMs } : {}), trace: ctx.span };
    if (entry.toolName === TURN_TOOLS.stream) {
      let state: string | undefined;
      let text = '';
      let updates = 0;
      for await (const event of this.agents.stream(this.agent, message, { ...continuation, cancelOnAbort: listener?.cancelOnAbort ?? true }, ctx.signal)) {
        if (event.state) state = event.state;
        if (event.text) text = event.text;
        // An update from the agent is progress: a turn that keeps talking outlives its timeout.
        ctx.onProgress({ progress: ++updates, ...(event.state ? { message: event.state } : {}) });
        listener?.onEvent?.(event);
      }
      return turnResult(state, text);
    }
    const answer = await this.agents.send(this.agent, message, { ...continuation, signal: ctx.signal });
    if (listener) listener.answer = answer;
    return turnResult(answer.state, answer.text);
  }
}

function turnArguments(args: Record<string, unknown>): { message: A2aOutgoingMessage; contextId?: string; taskId?: string } {
  const message = A2aOutgoingMessage.safeParse(typeof args.text === 'string' ? args.text : { parts: args.parts, ...(args.metadata ? { metadata: args.metadata } : {}) });
  if (!message.success) throw new AppError('InvalidArguments', 'A message takes {"text": string} or {"parts": [A2A parts]}.');
  return {
    message: message.data,
    ...(typeof args.contextId === 'string' ? { contextId: args.contextId } : {}),
    ...(typeof args.taskId === 'string' ? { taskId: args.taskId } : {}),
  };
}

/** The turn as a tool result: the task's state and the agent's text; a FAILED or REJECTED task is an error result. */
function turnResult(state: string | undefined, text: string): ToolResult {
  const failed = state === 'FAILED' || state === 'REJECTED';
  return { content: [{ type: 'text', text: `${state ?? ''} ${text}`.trim() }], ...(failed ? { isError: true } : {}) };
}

function turnRequestArguments(message: A2aOutgoingMessage, opts: A2aTurnOptions): Record<string, unknown> {
  return {
    ...(typeof message === 'string' ? { text: message } : message),
    ...(opts.contextId ? { contextId: opts.contextId } : {}),
    ...(opts.taskId ? { taskId: opts.taskId } : {}),
  };
}

export interface A2aTurnOptions {
  /** Who is talking to the agent; its way in is always `a2a`. */
  caller: Caller;
  contextId?: string;
  taskId?: string;
  signal?: AbortSignal;
  /** Give up after this long (the task is canceled); the entry's timeout otherwise. */
  timeoutMs?: number;
  /** The caller confirmed a turn whose policy verdict is `confirm`. */
  confirmed?: boolean;
}

export interface A2aStreamTurnOptions extends A2aTurnOptions {
  /** Whether aborting also cancels the task at the agent. Default true. */
  cancelOnAbort?: boolean;
}

export interface A2aTurnsDeps {
  agents: A2aAgentService;
  pipeline: Pick<InvocationPipeline, 'invoke'>;
  catalog: { resolve(name: string): unknown; replaceSource(source: ToolEntry['source'], entries: readonly ToolEntry[], executor: ToolExecutor): unknown; removeSource(source: ToolEntry['source']): unknown };
  /** Registers a saved agent's entries (skills and turns) when they are not registered yet. */
  sync(agent: string): Promise<void>;
}

/** Conversation turns with an agent, each one call of its turn entry through the invocation pipeline. */
export class A2aTurns {
  constructor(private readonly deps: A2aTurnsDeps) {}

  /** Sends a message and waits for the agent's answer; refused, failed and canceled turns are recorded too. */
  async send(agent: string, message: A2aOutgoingMessage, opts: A2aTurnOptions): Promise<A2aSendResult> {
    const listener: TurnListener = { cancelOnAbort: true, ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) };
    const outcome = await this.withEntries(agent, (name) =>
      turnListener.run(listener, () => this.deps.pipeline.invoke({ ...this.request(name, message, opts), signal: opts.signal })),
      TURN_TOOLS.send,
    );
    if (outcome.error) throw errorOf(outcome.error);
    if (!listener.answer) throw new AppError('Internal', `The turn with ${agent} ended without an answer.`);
    return listener.answer;
  }

  /** Sends a message and yields the agent's updates as they arrive; stopping early ends the call (and by default cancels the task). */
  async *stream(agent: string, message: A2aOutgoingMessage, opts: A2aStreamTurnOptions): AsyncGenerator<A2aEvent> {
    const turn = startCancellableRun<A2aEvent, InvocationOutcome>(
      ({ signal, emit }) => {
        const listener: TurnListener = { cancelOnAbort: opts.cancelOnAbort ?? true, onEvent: emit, ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) };
        return this.withEntries(agent, (name) => turnListener.run(listener, () => this.deps.pipeline.invoke({ ...this.request(name, message, opts), signal })), TURN_TOOLS.stream);
      },
      // A consumer that leaves early (the view closed) ends the call; its record is written before we return.
      { signal: opts.signal, settleOnStop: true },
    );
    yield* turn;
    const outcome = await turn.result;
    if (outcome.error) throw errorOf(outcome.error);
  }

  private request(name: string, message: A2aOutgoingMessage, opts: A2aTurnOptions) {
    return {
      caller: { ...opts.caller, via: 'a2a' as const, ...(opts.contextId && !opts.caller.sessionId ? { sessionId: opts.contextId } : {}) },
      name,
      arguments: turnRequestArguments(message, opts),
      ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
      ...(opts.confirmed ? { confirmed: true } : {}),
    };
  }

  /**
   * Runs `call` with the agent's turn entry registered. A saved agent's entries are registered by
   * its catalog sync (even while it is unreachable, so a failed turn is recorded with its real
   * error). An agent addressed by URL is a one-off: its entries exist for this turn only (source
   * `a2a:<url>`, which `a2a:*` permissions cover), as one-off MCP and gRPC targets are registered
   * for their call.
   */
  private async withEntries<T>(agent: string, call: (name: string) => Promise<T>, tool: string): Promise<T> {
    const name = `a2a:${agent}.${tool}`;
    if (!/^https?:\/\//i.test(agent)) {
      if (!this.deps.catalog.resolve(name)) await this.deps.sync(agent);
      if (!this.deps.catalog.resolve(name)) await this.deps.agents.get(agent);
      return call(name);
    }
    const source = { kind: 'a2a' as const, name: agent };
    this.deps.catalog.replaceSource(source, turnEntries(agent), new A2aTurnExecutor(this.deps.agents, agent));
    try {
      return await call(name);
    } finally {
      this.deps.catalog.removeSource(source);
    }
  }
}

function errorOf(shape: { code: AppError['code']; message: string; retryable?: boolean; step?: string; details?: string[] }): AppError {
  return new AppError(shape.code, shape.message, { retryable: shape.retryable, step: shape.step, details: shape.details });
}
