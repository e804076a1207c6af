import type { Span } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { AgentCard, TaskState, type Message } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory, type AgentCardResolver as SdkCardResolver, type Client } from '@a2a-js/sdk/client';
import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import {
  A2aAgentConfig,
  A2aAgentInput,
  isFinalA2aState,
  type A2aCardReport,
  type A2aCardView,
  type A2aEvent,
  type A2aOutgoingMessage,
  type A2aSendResult,
  type A2aTaskState,
  type A2aTaskView,
  type A2aThread,
  type A2aTranscriptEntry,
} from '../../shared/a2a';
import { isSecretSetting } from '../../shared/secrets';
import { AppError, isAppError } from '../../shared/errors';
import { JsonFile } from '../platform/JsonFile';
import type { Logger } from '../platform/Logger';
import type { SecretStore } from '../platform/SecretStore';
import { credentialOriginText, credentialsMayGoTo } from '../../shared/endpointOrigin';
import { a2aSecretKey, cardPointsElsewhere, createAuthFetch, fetchPinnedTo, resolveAuth, SECRET_NAMES, type AuthFetch } from './A2aAuth';
import { A2aThreads } from './A2aThreads';
import { A2aTranscript } from './A2aTranscript';
import { AgentCardResolver, type ResolvedCard } from './AgentCardResolver';
import { CardValidator } from './CardValidator';
import { isUnsupported, toAppError } from './errorMapping';
import { eventOf, outgoingMessage, sendResultOf, taskResult, taskView } from './sdkViews';
import { callTracing, SpanKind, TRACEPARENT, traceparentOf } from '../metrics/CallTracing';

export interface A2aAgentServiceDeps {
  dataDir: string;
  secretStore: SecretStore;
  logger: Logger;
  /** The network fetch underneath auth and the transcript. */
  fetch?: typeof fetch;
  transcript?: A2aTranscript;
  /** Bound for card fetches and the validator's reachability probes. */
  cardTimeoutMs?: number;
}

export interface A2aSendOptions {
  /** Continue this conversation; with no taskId, a task in it waiting for input is continued. */
  contextId?: string;
  /** Continue this task (the answer to INPUT_REQUIRED / AUTH_REQUIRED). */
  taskId?: string;
  signal?: AbortSignal;
  /** Give up after this long, cancel the task, and fail with Timeout. */
  timeoutMs?: number;
  metadata?: Record<string, unknown>;
  /** The span this message belongs to (a registry call's): its transport span is a child of it, in its trace. */
  trace?: Span;
}

export interface A2aStreamOptions extends A2aSendOptions {
  /** Whether aborting the signal also cancels the task at the agent. Default true. */
  cancelOnAbort?: boolean;
}

export interface A2aTaskList {
  tasks: A2aTaskView[];
  nextPageToken?: string;
  totalSize?: number;
}

interface Connection {
  key: string;
  card: ResolvedCard;
  client: Client;
  binding: string;
  endpoint: string;
  listTasksUnsupported?: boolean;
}

/** `<dataDir>/a2a-agents.json`: the saved agents, secrets left out. */
const AgentsFile = z.object({ version: z.literal(1).default(1), agents: z.array(A2aAgentConfig).default([]) });

const BINDING_PREFERENCE = ['JSONRPC', 'HTTP+JSON'];
const POLL_MS = [250, 500, 1000];

function isUrl(target: string): boolean {
  return /^https?:\/\//i.test(target);
}

/**
 * A2A agents: saved agent definitions (secrets in the SecretStore only), one SDK client per agent with
 * the transport the card offers (JSON-RPC first, HTTP+JSON otherwise, 0.3 peers through the SDK's
 * compat layer), messaging and task operations normalized across versions, in-memory threads and a
 * per-agent transcript. An agent is addressed by its saved name or, unsaved, by its URL.
 */
export class A2aAgentService {
  readonly transcript: A2aTranscript;
  private readonly threadBook = new A2aThreads();
  private readonly connections = new Map<string, Promise<Connection>>();
  private readonly resolver: AgentCardResolver;
  private readonly validator: CardValidator;
  private readonly file: JsonFile<typeof AgentsFile>;

  constructor(private readonly deps: A2aAgentServiceDeps) {
    this.transcript = deps.transcript ?? new A2aTranscript();
    this.resolver = new AgentCardResolver({ fetch: deps.fetch, timeoutMs: deps.cardTimeoutMs });
    this.validator = new CardValidator({ fetch: deps.fetch, timeoutMs: deps.cardTimeoutMs });
    this.file = new JsonFile(join(deps.dataDir, 'a2a-agents.json'), AgentsFile, () => ({ version: 1 as const, agents: [] }));
  }

  // ── saved agents ────────────────────────────────────────────────────────────────────────────

  async list(): Promise<A2aAgentConfig[]> {
    return (await this.file.read()).agents;
  }

  async get(name: string): Promise<A2aAgentConfig> {
    const agent = (await this.list()).find((a) => a.name === name);
    if (!agent) throw new AppError('NotFound', `No saved A2A agent named "${name}".`);
    return agent;
  }

  /**
   * Creates or replaces an agent. Secret values go to the SecretStore; omitted ones are kept — unless
   * the agent moves to another origin (or from https to http): stored credentials stay bound to the
   * address they were given for, so the save is refused until they are given again.
   */
  async save(input: A2aAgentInput): Promise<A2aAgentConfig> {
    const parsed = A2aAgentInput.safeParse(input);
    if (!parsed.success) throw new AppError('InvalidInput', `Invalid agent: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'agent'}: ${i.message}`).join('; ')}`);
    // A credential header (Authorization, X-Api-Key, …) is sealed whether or not it was marked secret.
    const value = { ...parsed.data, headers: parsed.data.headers.map((h) => ({ ...h, secret: h.secret || isSecretSetting(h.name, h.value ?? '') })) };
    const secrets = this.deps.secretStore;
    const key = (name: string) => a2aSecretKey(value.name, name);
    const auth = value.auth;
    const wanted = new Set<string>();
    if (auth.kind === 'bearer') wanted.add(SECRET_NAMES.token);
    if (auth.kind === 'apiKey') wanted.add(SECRET_NAMES.apiKey);
    if (auth.kind === 'oauth2ClientCredentials') wanted.add(SECRET_NAMES.clientSecret);
    for (const header of value.headers) if (header.secret) wanted.add(SECRET_NAMES.header(header.name));

    const config = await this.mutate(async (agents) => {
      const now = new Date().toISOString();
      const existing = agents.find((a) => a.name === value.name);
      if (existing && !credentialsMayGoTo(existing.url, value.url)) {
        const given = new Set<string>();
        if (auth.kind === 'bearer' && auth.token) given.add(SECRET_NAMES.token);
        if (auth.kind === 'apiKey' && auth.key) given.add(SECRET_NAMES.apiKey);
        if (auth.kind === 'oauth2ClientCredentials' && auth.clientSecret) given.add(SECRET_NAMES.clientSecret);
        for (const header of value.headers) if (header.secret && header.value) given.add(SECRET_NAMES.header(header.name));
        const missing = [...wanted].filter((name) => !given.has(name));
        if (missing.length) {
          throw new AppError(
            'InvalidInput',
            `"${value.name}" moves to ${credentialOriginText(value.url) ?? value.url} from ${credentialOriginText(existing.url) ?? existing.url}: give its ${missing.map(describeSecret).join(', ')} again, as saved credentials stay with the address they were given for.`,
          );
        }
      }
      const next: A2aAgentConfig = A2aAgentConfig.parse({
        name: value.name,
        url: value.url,
        ...(value.interfaceOrigin ? { interfaceOrigin: value.interfaceOrigin } : {}),
        headers: value.headers.map((h) => (h.secret ? { name: h.name, secret: true } : { name: h.name, value: h.value ?? '', secret: false })),
        auth:
          auth.kind === 'bearer'
            ? { kind: 'bearer', scheme: auth.scheme }
            : auth.kind === 'apiKey'
              ? { kind: 'apiKey', scheme: auth.scheme, in: auth.in, name: auth.name }
              : auth.kind === 'oauth2ClientCredentials'
                ? { kind: 'oauth2ClientCredentials', scheme: auth.scheme, tokenUrl: auth.tokenUrl, clientId: auth.clientId, scopes: auth.scopes }
                : { kind: 'none' },
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      });
      if (auth.kind === 'bearer' && auth.token) await secrets.set(key(SECRET_NAMES.token), auth.token);
      if (auth.kind === 'apiKey' && auth.key) await secrets.set(key(SECRET_NAMES.apiKey), auth.key);
      if (auth.kind === 'oauth2ClientCredentials' && auth.clientSecret) await secrets.set(key(SECRET_NAMES.clientSecret), auth.clientSecret);
      for (const header of value.headers) if (header.secret && header.value) await secrets.set(key(SECRET_NAMES.header(header.name)), header.value);
      const prefix = a2aSecretKey(value.name, '');
      for (const stored of await secrets.keys()) if (stored.startsWith(prefix) && !wanted.has(stored.slice(prefix.length))) await secrets.delete(stored);
      return { agents: [...agents.filter((a) => a.name !== value.name), next], result: next };
    });
    this.connections.delete(value.name);
    return config;
  }

  async remove(name: string): Promise<void> {
    await this.mutate(async (agents) => {
      if (!agents.some((a) => a.name === name)) throw new AppError('NotFound', `No saved A2A agent named "${name}".`);
      return { agents: agents.filter((a) => a.name !== name), result: undefined };
    });
    const prefix = a2aSecretKey(name, '');
    for (const stored of await this.deps.secretStore.keys()) if (stored.startsWith(prefix)) await this.deps.secretStore.delete(stored);
    this.connections.delete(name);
    this.threadBook.forget(name);
    this.transcript.clear(name);
  }

  // ── cards ──────────────────────────────────────────────────────────────────────────────────

  /** Resolves and validates a card by URL or saved name, without keeping a connection. */
  async inspect(target: string, signal?: AbortSignal): Promise<A2aCardReport> {
    const config = isUrl(target) ? undefined : await this.get(target);
    const headers = config ? (await this.customHeaders(config)).headers : {};
    const recorded = this.transcript.wrapFetch(config?.name ?? target, this.baseFetch);
    const card = await this.resolver.resolve(config?.url ?? target, {
      fetch: config && hasCredentials(config) ? fetchPinnedTo(recorded, config.url, config.name) : recorded,
      headers,
      signal,
    });
    const rows = await this.validator.validate(card, signal);
    return { cardUrl: card.cardUrl, protocolVersion: card.protocolVersion, card: card.view, rows, raw: card.raw };
  }

  async card(agent: string): Promise<A2aCardView> {
    return (await this.connection(agent)).card.view;
  }

  /** How the agent is being talked to: protocol version, the binding picked from its card, and where. */
  async connectionInfo(agent: string): Promise<{ protocolVersion: A2aCardView['protocolVersion']; binding: string; endpoint: string }> {
    const conn = await this.connection(agent);
    return { protocolVersion: conn.card.protocolVersion, binding: conn.binding, endpoint: conn.endpoint };
  }

  /** Drops the cached connection so the next call re-reads the card. */
  reconnect(agent: string) {
    this.connections.delete(agent);
  }

  // ── messaging ──────────────────────────────────────────────────────────────────────────────

  /**
   * Sends a message and waits for the agent's answer (the finished task, a waiting task, or a
   * message). The protocol operation only: a conversation turn is a call of the agent's turn entry
   * through the invocation pipeline (A2aTurns), which records it; a skill call is one too.
   */
  send(agent: string, message: A2aOutgoingMessage, opts: A2aSendOptions = {}): Promise<A2aSendResult> {
    return this.deliver(agent, message, opts);
  }

  /** Sends a message and yields the agent's updates as they arrive, ending at a final state (the protocol operation only, as `send`). */
  stream(agent: string, message: A2aOutgoingMessage, opts: A2aStreamOptions = {}, signal?: AbortSignal): AsyncGenerator<A2aEvent> {
    return this.deliverStream(agent, message, opts, signal);
  }

  /** One SendMessage in a transport span whose trace context travels with the message. */
  private deliver(agent: string, message: A2aOutgoingMessage, opts: A2aSendOptions): Promise<A2aSendResult> {
    return callTracing.within(
      'transport',
      { 'rpc.system': 'a2a', 'rpc.method': 'SendMessage', 'a2a.agent': agent },
      (span) => this.sendNow(agent, message, opts, traceparentOf(span)),
      SpanKind.CLIENT,
      opts.trace,
    );
  }

  private async sendNow(agent: string, message: A2aOutgoingMessage, opts: A2aSendOptions, traceparent: string): Promise<A2aSendResult> {
    const conn = await this.connection(agent);
    // Trace context (W3C, as MCP's SEP-414 puts it in _meta): in the message metadata, and the HTTP header.
    const outgoing = outgoingMessage(message, this.continuation(opts), { ...opts.metadata, traceparent });
    const at = Date.now();
    let result: A2aSendResult;
    if (opts.timeoutMs === undefined) {
      try {
        result = requireSendResult(await conn.client.sendMessage({ tenant: '', message: outgoing, configuration: undefined, metadata: undefined }, { signal: opts.signal }));
      } catch (error) {
        throw toAppError(error, { agent: conn.key, operation: 'SendMessage' });
      }
    } else {
      result = await this.sendWithDeadline(conn, outgoing, opts.timeoutMs, opts.signal);
    }
    this.recordSend(conn.key, outgoing, result, at);
    return result;
  }

  /** One SendStreamingMessage in a transport span whose trace context travels with the message. */
  private async *deliverStream(agent: string, message: A2aOutgoingMessage, opts: A2aStreamOptions, signal: AbortSignal | undefined): AsyncGenerator<A2aEvent> {
    const span = callTracing.start('transport', { 'rpc.system': 'a2a', 'rpc.method': 'SendStreamingMessage', 'a2a.agent': agent }, { kind: SpanKind.CLIENT, parent: opts.trace });
    try {
      yield* this.streamNow(agent, message, opts, signal, traceparentOf(span));
    } finally {
      span.end();
    }
  }

  private async *streamNow(agent: string, message: A2aOutgoingMessage, opts: A2aStreamOptions, signal: AbortSignal | undefined, traceparent: string): AsyncGenerator<A2aEvent> {
    const conn = await this.connection(agent);
    const outgoing = outgoingMessage(message, this.continuation(opts), { ...opts.metadata, traceparent });
    const at = Date.now();
    const userSignal = signal ?? opts.signal;
    const deadline = opts.timeoutMs === undefined ? undefined : AbortSignal.timeout(opts.timeoutMs);
    const controller = new AbortController();
    const stop = () => controller.abort();
    const watched = [userSignal, deadline].filter((s): s is AbortSignal => s !== undefined);
    for (const s of watched) s.addEventListener('abort', stop, { once: true });
    let taskId = outgoing.taskId || undefined;
    let contextId = outgoing.contextId || undefined;
    let userRecorded = false;
    let final = false;
    try {
      if (watched.some((s) => s.aborted)) stop();
      for await (const response of conn.client.sendMessageStream({ tenant: '', message: outgoing, configuration: undefined, metadata: undefined }, { signal: controller.signal })) {
        const event = eventOf(response);
        if (!event) continue;
        taskId ??= event.taskId;
        contextId ??= event.contextId;
        if (!userRecorded && contextId) {
          this.recordUser(conn.key, contextId, outgoing, at, taskId);
          userRecorded = true;
        }
        this.threadBook.event(conn.key, event);
        final = event.final === true;
        yield event;
        if (final) return;
      }
    } catch (error) {
      if (!controller.signal.aborted) throw toAppError(error, { agent: conn.key, operation: 'SendStreamingMessage' });
    } finally {
      for (const s of watched) s.removeEventListener('abort', stop);
      if (!final && !controller.signal.aborted) controller.abort();
    }
    if (deadline?.aborted) {
      if (taskId) await this.cancelQuietly(conn, taskId);
      throw new AppError('Timeout', `${conn.key} did not finish within ${opts.timeoutMs} ms${taskId ? `; task ${taskId} was canceled` : ''}.`);
    }
    if (userSignal?.aborted) {
      if (taskId && opts.cancelOnAbort !== false) await this.cancelQuietly(conn, taskId);
      throw new AppError('Canceled', `The stream from ${conn.key} was closed by the caller.`);
    }
    if (!final) {
      throw new AppError(
        'ExecutionFailed',
        `${conn.key} ended the stream before the task reached a final state${taskId ? `; resubscribe to task ${taskId} to follow it` : ''}. This does not follow the A2A protocol.`,
        { step: 'protocol' },
      );
    }
  }

  /**
   * Reattaches to a running task. If the agent no longer streams it (it finished meanwhile, or it
   * cannot resubscribe), the task is polled until it reaches a final state, so the caller always
   * ends with the task's real final state.
   */
  async *resubscribe(agent: string, taskId: string, signal?: AbortSignal): AsyncGenerator<A2aEvent> {
    const conn = await this.connection(agent);
    let state: A2aTaskState | undefined;
    if (conn.card.view.capabilities.streaming) {
      try {
        for await (const response of conn.client.resubscribeTask({ tenant: '', id: taskId }, { signal })) {
          const event = eventOf(response);
          if (!event) continue;
          this.threadBook.event(conn.key, event);
          state = event.state ?? state;
          yield event;
          if (event.final) return;
        }
      } catch (error) {
        const mapped = toAppError(error, { agent: conn.key, operation: 'SubscribeToTask' });
        if (signal?.aborted) throw new AppError('Canceled', `Resubscribing to ${taskId} on ${conn.key} was canceled.`);
        // Refusals (the task already finished, or no live stream to join) fall through to polling.
        if (mapped.step !== 'agent') throw mapped;
      }
    }
    for (let attempt = 0; ; attempt++) {
      const task = await this.getTask(agent, taskId, { signal });
      if (task.state !== state || isFinalA2aState(task.state)) {
        state = task.state;
        yield { kind: 'task', taskId: task.id, contextId: task.contextId, state: task.state, ...(task.statusText ? { text: task.statusText } : {}), final: isFinalA2aState(task.state), at: Date.now() };
      }
      if (isFinalA2aState(task.state)) return;
      await abortableSleep(POLL_MS[Math.min(attempt, POLL_MS.length - 1)]!, signal);
    }
  }

  // ── tasks ──────────────────────────────────────────────────────────────────────────────────

  async getTask(agent: string, taskId: string, opts: { historyLength?: number; signal?: AbortSignal } = {}): Promise<A2aTaskView> {
    const conn = await this.connection(agent);
    try {
      const view = requireTask(taskView(await conn.client.getTask({ tenant: '', id: taskId, historyLength: opts.historyLength }, { signal: opts.signal })), taskId);
      this.threadBook.snapshot(conn.key, view);
      return view;
    } catch (error) {
      throw toAppError(error, { agent: conn.key, operation: 'GetTask' });
    }
  }

  async cancelTask(agent: string, taskId: string, opts: { signal?: AbortSignal } = {}): Promise<A2aTaskView> {
    const conn = await this.connection(agent);
    return this.cancelOn(conn, taskId, opts.signal);
  }

  /** ListTasks exists from A2A 1.0 on; 0.3 agents, and 1.0 agents that answer "method not found", lack it. */
  async supportsListTasks(agent: string): Promise<boolean> {
    const conn = await this.connection(agent);
    return conn.card.protocolVersion === '1.0' && !conn.listTasksUnsupported;
  }

  async listTasks(agent: string, opts: { contextId?: string; pageSize?: number; pageToken?: string; signal?: AbortSignal } = {}): Promise<A2aTaskList> {
    const conn = await this.connection(agent);
    if (!(await this.supportsListTasks(agent))) {
      throw new AppError('ExecutionFailed', `ListTasks is not supported by this agent (${conn.key} speaks A2A ${conn.card.protocolVersion}${conn.card.protocolVersion === '0.3' ? ', which has no tasks/list' : ''}).`, {
        step: 'agent',
      });
    }
    try {
      const response = await conn.client.listTasks(
        {
          tenant: '',
          contextId: opts.contextId ?? '',
          status: TaskState.TASK_STATE_UNSPECIFIED,
          pageSize: opts.pageSize,
          pageToken: opts.pageToken ?? '',
          historyLength: undefined,
          statusTimestampAfter: undefined,
          includeArtifacts: true,
        },
        { signal: opts.signal },
      );
      return {
        tasks: response.tasks.map(taskView),
        ...(response.nextPageToken ? { nextPageToken: response.nextPageToken } : {}),
        ...(response.totalSize ? { totalSize: response.totalSize } : {}),
      };
    } catch (error) {
      if (isUnsupported(error)) conn.listTasksUnsupported = true;
      throw toAppError(error, { agent: conn.key, operation: 'ListTasks' });
    }
  }

  // ── threads and transcript ────────────────────────────────────────────────────────────────

  threads(agent?: string): A2aThread[] {
    return this.threadBook.list(agent);
  }

  thread(contextId: string): A2aThread | undefined {
    return this.threadBook.get(contextId);
  }

  transcriptOf(agent: string): A2aTranscriptEntry[] {
    return this.transcript.entries(agent);
  }

  async close() {
    this.connections.clear();
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────

  private get baseFetch(): typeof fetch {
    return this.deps.fetch ?? fetch;
  }

  private continuation(opts: A2aSendOptions): { contextId?: string; taskId?: string } {
    const taskId = opts.taskId ?? (opts.contextId ? this.threadBook.waitingTask(opts.contextId) : undefined);
    const contextId = opts.contextId ?? (taskId ? this.threadBook.contextOfTask(taskId) : undefined);
    return { ...(contextId ? { contextId } : {}), ...(taskId ? { taskId } : {}) };
  }

  private async sendWithDeadline(conn: Connection, outgoing: Message, timeoutMs: number, signal?: AbortSignal): Promise<A2aSendResult> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let first: A2aSendResult;
    try {
      // Ask for the task back at once, so a slow agent can be canceled by id when time runs out.
      first = requireSendResult(
        await conn.client.sendMessage(
          {
            tenant: '',
            message: outgoing,
            configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
            metadata: undefined,
          },
          { signal: combined },
        ),
      );
    } catch (error) {
      if (deadline.aborted) throw new AppError('Timeout', `${conn.key} did not answer within ${timeoutMs} ms.`, { step: 'transport' });
      throw toAppError(error, { agent: conn.key, operation: 'SendMessage' });
    }
    if (first.kind === 'message' || !first.taskId || isFinalA2aState(first.state)) return first;
    try {
      for await (const event of this.resubscribe(conn.key, first.taskId, combined)) if (event.final) break;
      return taskResult(await this.getTask(conn.key, first.taskId, { signal: combined }));
    } catch (error) {
      if (deadline.aborted) {
        await this.cancelQuietly(conn, first.taskId);
        throw new AppError('Timeout', `${conn.key} did not finish task ${first.taskId} within ${timeoutMs} ms; the task was canceled.`);
      }
      if (signal?.aborted) {
        await this.cancelQuietly(conn, first.taskId);
        throw new AppError('Canceled', `Waiting for task ${first.taskId} on ${conn.key} was canceled; the task was canceled too.`);
      }
      throw error;
    }
  }

  private async cancelOn(conn: Connection, taskId: string, signal?: AbortSignal): Promise<A2aTaskView> {
    try {
      const view = requireTask(taskView(await conn.client.cancelTask({ tenant: '', id: taskId, metadata: undefined }, { signal })), taskId);
      this.threadBook.snapshot(conn.key, view);
      return view;
    } catch (error) {
      throw toAppError(error, { agent: conn.key, operation: 'CancelTask' });
    }
  }

  private async cancelQuietly(conn: Connection, taskId: string) {
    try {
      await this.cancelOn(conn, taskId, AbortSignal.timeout(10_000));
    } catch (error) {
      this.deps.logger.warn('a2a: cancel after abort failed', { agent: conn.key, taskId, error: (error as Error).message });
    }
  }

  private recordUser(agent: string, contextId: string, outgoing: Message, at: number, taskId?: string) {
    const text = outgoing.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('\n');
    this.threadBook.message(agent, contextId, { role: 'user', text, at, messageId: outgoing.messageId, ...(taskId ? { taskId } : {}) });
  }

  private recordSend(agent: string, outgoing: Message, result: A2aSendResult, at: number) {
    const contextId = result.contextId ?? (outgoing.contextId || undefined);
    if (!contextId) return;
    this.recordUser(agent, contextId, outgoing, at, result.taskId);
    if (result.task) this.threadBook.snapshot(agent, result.task);
    else if (result.message) {
      this.threadBook.message(agent, contextId, { role: 'agent', text: result.message.text, at: Date.now(), messageId: result.message.messageId || randomUUID() });
    }
  }

  private connection(agent: string): Promise<Connection> {
    let pending = this.connections.get(agent);
    if (!pending) {
      pending = this.connect(agent).catch((error) => {
        this.connections.delete(agent);
        throw error;
      });
      this.connections.set(agent, pending);
    }
    return pending;
  }

  private async customHeaders(config: A2aAgentConfig): Promise<{ headers: Record<string, string>; secretValues: string[] }> {
    const headers: Record<string, string> = {};
    const secretValues: string[] = [];
    for (const header of config.headers) {
      const value = header.secret ? await this.deps.secretStore.get(a2aSecretKey(config.name, SECRET_NAMES.header(header.name))) : header.value;
      if (value === undefined) continue;
      headers[header.name] = value;
      if (header.secret) secretValues.push(value);
    }
    return { headers, secretValues };
  }

  private async connect(agent: string): Promise<Connection> {
    const config = isUrl(agent) ? undefined : await this.get(agent);
    const key = config?.name ?? agent;
    const custom = config ? await this.customHeaders(config) : { headers: {}, secretValues: [] };
    // The transcript sits under the auth layer (it records what goes on the wire), yet masks what that layer adds.
    const authRef: { current?: AuthFetch } = {};
    const recorded = this.transcript.wrapFetch(key, this.baseFetch, {
      secretValues: () => [...custom.secretValues, ...(authRef.current?.secretValues() ?? [])],
      secretHeaders: config?.headers.filter((h) => h.secret).map((h) => h.name),
    });
    // The card request carries the custom headers (sealed ones too): it may not be redirected off the agent's origin.
    const card = await this.resolver.resolve(config?.url ?? agent, { fetch: config && hasCredentials(config) ? fetchPinnedTo(recorded, config.url, key) : recorded, headers: custom.headers });
    const chosen = BINDING_PREFERENCE.map((binding) => card.view.interfaces.find((i) => i.binding === binding && isUrl(i.url))).find((i) => i !== undefined);
    if (!chosen) {
      throw new AppError(
        'ExecutionFailed',
        `${key} offers no interface this client speaks (JSON-RPC or HTTP+JSON): ${card.view.interfaces.map((i) => i.binding || '?').join(', ') || 'none'}.`,
        { step: 'validate' },
      );
    }
    // Credentials go only to the origin the user saved the agent at, whatever the card declares; an
    // interface on another origin only once the user confirmed it by saving it as interfaceOrigin.
    const savedAt = config && hasCredentials(config) ? config.url : undefined;
    const callsGoTo = savedAt && !credentialsMayGoTo(savedAt, chosen.url) ? config?.interfaceOrigin : savedAt;
    if (savedAt && (!callsGoTo || !credentialsMayGoTo(callsGoTo, chosen.url))) throw cardPointsElsewhere(key, 'interface', chosen.url, savedAt);
    const auth = createAuthFetch(recorded, await resolveAuth(key, config?.auth ?? { kind: 'none' }, card.view, this.deps.secretStore, savedAt), custom.headers, callsGoTo, key);
    authRef.current = auth;

    const sdkCard = card.protocolVersion === '0.3' ? parseLegacyAgentCard(card.raw) : AgentCard.fromJSON(card.raw);
    // The card is already fetched and parsed; the factory must not re-fetch or re-normalize it.
    const cardResolver: SdkCardResolver = {
      resolve: async () => sdkCard,
      normalizeAgentCard: () => sdkCard,
    };
    const factory = new ClientFactory({
      transports: [
        new JsonRpcTransportFactory({ fetchImpl: withA2aTraceparentHeader(auth.fetch), legacyCompat: { enabled: true } }),
        new RestTransportFactory({ fetchImpl: withA2aTraceparentHeader(auth.fetch), legacyCompat: { enabled: true } }),
      ],
      preferredTransports: [chosen.binding],
      cardResolver,
    });
    let client: Client;
    try {
      client = await factory.createFromAgentCard(sdkCard);
    } catch (error) {
      throw isAppError(error) ? error : new AppError('ExecutionFailed', `Cannot build a client for ${key}: ${(error as Error).message}`, { step: 'validate', cause: error });
    }
    this.deps.logger.debug('a2a: connected', { agent: key, protocol: card.protocolVersion, binding: chosen.binding, endpoint: chosen.url });
    return { key, card, client, binding: chosen.binding, endpoint: chosen.url };
  }

  /** Read-modify-write, one at a time, replacing the file atomically. */
  private mutate<T>(change: (agents: A2aAgentConfig[]) => Promise<{ agents: A2aAgentConfig[]; result: T }>): Promise<T> {
    return this.file.update(async (current) => {
      const { agents, result } = await change(current.agents);
      return { next: { version: 1 as const, agents: agents.sort((a, b) => a.name.localeCompare(b.name)) }, result };
    });
  }
}

/** A stored secret's name (`token`, `header:x-api-key`) as the user knows it. */
function describeSecret(name: string): string {
  if (name === SECRET_NAMES.token) return 'bearer token';
  if (name === SECRET_NAMES.apiKey) return 'API key';
  if (name === SECRET_NAMES.clientSecret) return 'OAuth client secret';
  return `${name.replace(/^header:/, '')} header`;
}

/** Whether calls to the agent carry anything secret: an auth scheme or a sealed header. */
function hasCredentials(config: A2aAgentConfig): boolean {
  return config.auth.kind !== 'none' || config.headers.some((header) => header.secret);
}

function requireSendResult(answer: Parameters<typeof sendResultOf>[0]): A2aSendResult {
  const result = sendResultOf(answer);
  if (result.kind === 'task' && (!result.taskId || !result.contextId)) throw new Error('the answer holds a task without id or contextId');
  return result;
}

/** A task answer must be the asked-for task; an empty or different id means the agent sent some other shape. */
function requireTask(view: A2aTaskView, expectedId: string): A2aTaskView {
  if (view.id !== expectedId) {
    throw new Error(`expected task ${expectedId} in the answer, got ${view.id ? `task ${view.id}` : 'no task (is the Task wrapped in another object?)'}`);
  }
  return view;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AppError('Canceled', 'Canceled.'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AppError('Canceled', 'Canceled.'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The `traceparent` header of an A2A request: the one its message carries in metadata (JSON-RPC or REST body). */
function withA2aTraceparentHeader(base: typeof fetch): typeof fetch {
  return (input, init) => {
    const body = typeof init?.body === 'string' && init.body.includes('"traceparent"') ? init.body : undefined;
    let traceparent: unknown;
    if (body) {
      try {
        const parsed = JSON.parse(body) as { params?: { message?: { metadata?: { traceparent?: unknown } } }; message?: { metadata?: { traceparent?: unknown } } };
        traceparent = (parsed.params?.message ?? parsed.message)?.metadata?.traceparent;
      } catch {
        traceparent = undefined;
      }
    }
    if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return base(input, init);
    const headers = new Headers(init?.headers);
    headers.set('traceparent', traceparent);
    return base(input, { ...init, headers });
  };
}

