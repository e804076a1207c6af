import { Client, UrlElicitationRequiredError, type CallToolResult, type ClientContext, type CompleteRequest, type FetchLike, type JSONRPCRequest, type Result, type Tool } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../shared/errors';
import { URL_ELICITATION_STEP, type ConnectionState, type McpServerConfig, type McpTool, type Root, type ServerSnapshot, type ToolListDiff } from '../../shared/mcp';
import type { InvokeTaskOptions } from '../../shared/tasks';
import type { Logger } from '../platform/Logger';
import { Emitter } from '../platform/Emitter';
import type { CallRelay, TaskUpdate } from '../registry/types';
import type { SecretRedactor } from '../platform/SecretRedactor';
import { classifyConnectError, type ConnectClues } from './connectErrors';
import type { EraCache } from './EraCache';
import type { InteractionBroker } from './InteractionBroker';
import { McpTranscript } from './McpTranscript';
import type { OAuthSession } from './oauth/OAuthSession';
import { acceptToolList } from './acceptToolList';
import { ClientTaskExecutor } from './tasks/ClientTaskExecutor';
import { adaptCreatedTasks } from './tasks/adaptCreatedTasks';
import { ConnectionTasks, type InputAnswerer } from './tasks/ConnectionTasks';
import type { TaskLedger } from './tasks/TaskLedger';
import { createdTaskIn, relatedTaskId, TASKS_EXTENSION, taskAugmentation } from './tasks/taskWire';
import { diffToolLists, isEmptyDiff } from './toolListDiff';
import { createTransport, DEFAULT_MAX_RESULT_BYTES, observeTransport, traceOutgoing } from './transportFactory';

export interface McpConnectionOptions {
  /** The server as stored and shown: secrets sealed (see serverSecrets.ts). */
  config: McpServerConfig;
  /** The same server with its secrets, for the transport only; never shown or written. */
  launch: McpServerConfig;
  /** Masks every known secret in the transcript and in error messages. */
  redactor: SecretRedactor;
  bearerToken?: string;
  /** MCP authorization (OAuth) for HTTP servers: puts tokens on requests and answers 401/403. */
  oauth?: OAuthSession;
  /** HTTP servers without `oauth`: how requests are sent (a provided server reached through the API server's service proxy). */
  fetch?: FetchLike;
  broker: InteractionBroker;
  roots: () => Root[];
  clientInfo: { name: string; version: string };
  logger: Logger;
  connectTimeoutMs?: number;
  /** Remembered protocol eras, so reconnects skip the negotiation probe. */
  eraCache?: EraCache;
  /** Where the tasks this connection starts are remembered (per server, across restarts). */
  taskLedger?: TaskLedger;
  /** A call started a task without waiting for it. */
  onDetachedTask?: (taskId: string) => void;
  /** The tasks Tooldeck runs for this server changed (Tooldeck as task executor). */
  onExecutorTasksChanged?: () => void;
  /**
   * How long a stdio server gets to exit after its stdin closes before SIGTERM. The spec asks for
   * "a reasonable time"; the UI waits longer than a one-shot CLI call.
   */
  shutdownGraceMs?: number;
  /** The hard limit on one message from the server, over stdio or HTTP (default 64 MiB). */
  maxResultBytes?: number;
  /** Any change the UI should see: state, discovery, list changes. */
  onChange: () => void;
  /** The server went away on its own (exit, network drop) after being ready. */
  onUnexpectedClose: (reason: string) => void;
}

/** What a call in flight tells its caller (the pipeline's attempt: an ExecutionContext is one). */
export interface CallListener {
  onProgress(progress: { progress: number; total?: number; message?: string }): void;
  /** The call became a task, or its task changed status. */
  onTask?(update: TaskUpdate): void;
  /** Bytes of a reply are arriving (a large result): the answer has started. */
  keepAlive(): void;
  /** The call's `signal` is held no more (see ExecutionContext.releaseSignal): a plain call has settled. */
  releaseSignal?(): void;
  /** The caller answers the server's questions itself (an agent behind the gateway). */
  readonly relay?: CallRelay;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Told of progress, task updates and arriving bytes; an object, so a call makes no closures for them. */
  listener?: CallListener;
  /**
   * The SDK's own limit on the request, a backstop only: the invocation pipeline decides timeouts
   * and aborts through `signal` well before this.
   */
  backstopMs: number;
  /**
   * How to treat a task the server makes of the call (the SEP-2663 extension, where the server
   * decides): wait for it (the default) or return at once naming it.
   */
  task?: InvokeTaskOptions;
  /** The call's W3C traceparent, sent in the request's `_meta` (SEP-414); without it the request gets one of its own. */
  traceparent?: string;
}

const STDERR_TAIL = 20;
/** A server listing more tools than this is cut off (a cursor loop must end). */
const MAX_LISTED_TOOLS = 100_000;
const RawToolsPage = z.object({ tools: z.array(z.unknown()).default([]), nextCursor: z.string().optional() }).loose();

// The SDK validates structuredContent against outputSchema and throws on a mismatch; the console
// wants the result anyway and shows the mismatch as a warning, so validation happens in the UI path.
const permissiveValidator = { getValidator: () => (input: unknown) => ({ valid: true as const, data: input as never, errorMessage: undefined }) };

/**
 * The SDK client with one change: a server request that asks to run as a task (`params.task`,
 * SEP-1686) is answered with a CreateTaskResult, which the SDK's check of sampling and elicitation
 * results (made for the plain results) would refuse. Everything else goes through that check.
 */
class TaskAwareClient extends Client {
  protected override _wrapHandler(method: string, handler: (request: JSONRPCRequest, ctx: ClientContext) => Promise<Result>) {
    const checked = super._wrapHandler(method, handler);
    if (method !== 'sampling/createMessage' && method !== 'elicitation/create') return checked;
    return (request: JSONRPCRequest, ctx: ClientContext) => (taskAugmentation(request.params) ? handler(request, ctx) : checked(request, ctx));
  }
}

/**
 * What Tooldeck declares: form and URL elicitation, sampling (with tools), roots, and tasks in both
 * forms — SEP-1686 both ways (it calls tools as tasks and lists/cancels them, and runs sampling and
 * elicitation as tasks when a server asks, `tasks.requests.*`) and the SEP-2663 extension (a
 * server of the 2026-07-28 revision may answer a call with a task).
 */
const CLIENT_CAPABILITIES = {
  elicitation: { form: { applyDefaults: true }, url: {} },
  // Sampling with tools (SEP-1577): the operator answers as the model, with text or a tool call.
  sampling: { tools: {} },
  roots: { listChanged: true },
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
  extensions: { [TASKS_EXTENSION]: {} },
};

/** One live MCP session with one server: connect (with a doctor's verdict on failure), discover, call. */
export class McpConnection {
  readonly transcript: McpTranscript;
  private client?: Client;
  private taskOps?: ConnectionTasks;
  private executorTasks?: ClientTaskExecutor;
  private stdio?: StdioClientTransport;
  private closedByUs = false;
  private readonly stderrTail: string[] = [];
  private readonly protocolErrors: string[] = [];
  /** Recent output that was not JSON-RPC, with when it came: what a call that went unanswered may have got instead. */
  private readonly noise: Array<{ at: number; text: string }> = [];
  private disposing: Promise<void> = Promise.resolve();
  /** Calls in flight, told when bytes of a reply arrive. */
  private readonly receiving = new Set<CallListener>();
  private discovery: Pick<ServerSnapshot, 'tools' | 'resources' | 'resourceTemplates' | 'prompts' | 'problems'> & { lastDiff?: ToolListDiff } = {
    tools: [],
    resources: [],
    resourceTemplates: [],
    prompts: [],
    problems: [],
  };
  state: ConnectionState = { status: 'closed', since: Date.now(), attempt: 0 };
  /** The server's `notifications/resources/updated`, by URI (for the resources the gateway subscribed to for its agents). */
  private readonly resourceUpdates = new Emitter<string>();
  /** A 2026-07-28 server's resource subscriptions: one `subscriptions/listen` stream per URI (that era has no resources/subscribe). */
  private readonly listens = new Map<string, Promise<{ close(): Promise<void> }>>();

  constructor(private readonly options: McpConnectionOptions) {
    this.transcript = new McpTranscript(options.redactor);
  }

  get config(): McpServerConfig {
    return this.options.config;
  }

  snapshot(): ServerSnapshot {
    const client = this.client;
    const version = client?.getServerVersion();
    return {
      config: this.options.config,
      state: this.state,
      serverInfo: version ? { ...version } : undefined,
      protocolVersion: client?.getNegotiatedProtocolVersion(),
      era: client?.getProtocolEra(),
      capabilities: client?.getServerCapabilities() as Record<string, unknown> | undefined,
      instructions: client?.getInstructions(),
      ...this.discovery,
      pid: this.stdio?.pid ?? undefined,
    };
  }

  get tools(): McpTool[] {
    return this.discovery.tools;
  }

  async connect(attempt = 0, afterAuthorization = false): Promise<void> {
    const authorizationsBefore = this.options.oauth?.authorizations ?? 0;
    await this.dispose();
    this.closedByUs = false;
    this.stderrTail.length = 0;
    this.protocolErrors.length = 0;
    this.setState({ status: 'connecting', since: Date.now(), attempt });
    const { config } = this.options;
    this.transcript.recordEvent(
      config.transport === 'stdio' ? `Connecting over stdio: ${[config.command, ...config.args].join(' ')}` : `Connecting over ${config.transport === 'http' ? 'Streamable HTTP' : 'HTTP+SSE'}: ${config.url}`,
    );

    const clues: ConnectClues = { stderrTail: this.stderrTail, protocolErrors: this.protocolErrors };
    const { transport, stdio } = createTransport(this.options.launch, this.options.bearerToken, this.options.oauth?.fetch ?? this.options.fetch, {
      maxMessageBytes: this.options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
      onReceiving: () => {
        for (const listener of this.receiving) listener.keepAlive();
      },
    });
    this.stdio = stdio;
    stdio?.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split(/\r?\n/)) {
        if (!line.trim()) continue;
        this.stderrTail.push(line);
        if (this.stderrTail.length > STDERR_TAIL) this.stderrTail.shift();
        this.transcript.recordStderr(line);
      }
    });
    if (stdio) this.watchForNonProtocolOutput(stdio);
    observeTransport(
      transport,
      (m) => this.transcript.recordOutgoing(m),
      (m) => this.transcript.recordIncoming(m),
    );
    // Around the transcript's wrapper, so the transcript shows the traceparent that was sent.
    traceOutgoing(transport);
    // Inside it: the transcript shows the server's CreateTaskResult as sent, the SDK gets one it accepts.
    adaptCreatedTasks(transport);

    const client = new TaskAwareClient(this.options.clientInfo, {
      // A short probe: servers of the legacy era answer `server/discover` with an error at once;
      // only a silent one costs the probe timeout before the `initialize` fallback.
      // On HTTP a probe timeout is an outage (no fallback), so it gets the whole connect budget; a
      // busy server must not fail for answering the probe slowly.
      versionNegotiation: {
        mode: 'auto',
        probe: { timeoutMs: config.transport === 'stdio' ? Math.min(3_000, Math.round((this.options.connectTimeoutMs ?? 20_000) / 3)) : (this.options.connectTimeoutMs ?? 20_000) },
      },
      capabilities: CLIENT_CAPABILITIES,
      jsonSchemaValidator: permissiveValidator,
      listChanged: {
        // Refetched here rather than by the SDK, so a changed list is read as leniently as the first.
        tools: { autoRefresh: false, onChanged: () => void this.refreshTools() },
        resources: { onChanged: (error, resources) => (error ? this.noteError('resources/list refresh failed', error) : resources && this.update({ resources })) },
        prompts: { onChanged: (error, prompts) => (error ? this.noteError('prompts/list refresh failed', error) : prompts && this.update({ prompts })) },
      },
    });
    this.executorTasks = new ClientTaskExecutor(client);
    this.executorTasks.onChange(() => this.options.onExecutorTasksChanged?.());
    const answer = this.installServerRequestHandlers(client, this.executorTasks);
    client.setNotificationHandler('notifications/resources/updated', (notification) => this.resourceUpdates.emit(notification.params.uri));
    this.taskOps = new ConnectionTasks(config.name, client, this.options.taskLedger, this.options.onDetachedTask, answer);
    client.onerror = (error) => {
      // Non-JSON lines on stdout and similar protocol noise: keep them for the doctor.
      const text = error.message.slice(0, 300);
      this.protocolErrors.push(text);
      if (this.protocolErrors.length > 5) this.protocolErrors.shift();
      this.noise.push({ at: Date.now(), text });
      if (this.noise.length > 5) this.noise.shift();
      this.transcript.recordEvent(`Protocol error: ${text}`);
    };
    client.onclose = () => this.handleClose();
    this.client = client;

    const timeoutMs = this.options.connectTimeoutMs ?? 20_000;
    const prior = await this.options.eraCache?.get(config);
    try {
      await client.connect(transport, { timeout: timeoutMs, ...(prior ? { prior } : {}) });
    } catch (error) {
      clues.timedOut = /timed? ?out/i.test(String((error as Error)?.message));
      const failure = classifyConnectError(error, config, clues);
      if (failure.step === 'negotiation' && !afterAuthorization && this.options.oauth) {
        // The handshake's first request waited for an authorization flow (discovery, registration,
        // a browser) and ran out of time: once the tokens are in place it deserves a fresh start.
        await this.options.oauth.settled();
        if (this.options.oauth.authorizations > authorizationsBefore) {
          this.transcript.recordEvent('Authorization completed during the handshake; connecting again with the new token');
          return this.connect(attempt, true);
        }
      }
      if (prior && failure.step === 'negotiation') {
        // The remembered era may be stale (the server was upgraded): forget it and negotiate afresh.
        await this.options.eraCache?.set(config, undefined);
        this.transcript.recordEvent('The remembered protocol era did not work; negotiating again');
        return this.connect(attempt);
      }
      await this.failWith(failure);
      throw failure;
    }
    const era = client.getProtocolEra();
    const discover = client.getDiscoverResult();
    await this.options.eraCache?.set(config, era === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' }).catch(() => undefined);
    this.transcript.recordEvent(`Connected: ${client.getServerVersion()?.name ?? 'server'} ${client.getServerVersion()?.version ?? ''}, protocol ${client.getNegotiatedProtocolVersion()} (${client.getProtocolEra()} era)`);
    // Connected from here on (as other consoles show it); the tools follow once listed.
    this.setState({ status: 'ready', since: Date.now(), attempt: 0, listing: true });

    try {
      await this.discover();
    } catch (error) {
      const failure = new AppError('ConnectionFailed', `Listing tools failed: ${(error as Error).message}`, { step: 'listing', cause: error });
      await this.failWith(failure);
      throw failure;
    }
    // Closed while the handshake or listing was under way: stay closed rather than report ready.
    if (this.closedByUs || this.client !== client) throw new AppError('ConnectionFailed', 'The connection was closed while connecting', { step: 'transport', retryable: false });
    this.setState({ status: 'ready', since: Date.now(), attempt: 0 });
  }

  /** tools/list (every page), plus resources, templates and prompts where the server offers them. */
  async discover(): Promise<void> {
    const client = this.client;
    if (!client) throw new AppError('ConnectionFailed', `Server "${this.options.config.name}" is not connected`);
    const caps = client.getServerCapabilities() ?? {};
    const tools = caps.tools ? await this.listTools(client) : [];
    const optional = async <T>(offered: unknown, load: () => Promise<T[]>, what: string): Promise<T[]> => {
      if (!offered) return [];
      try {
        return await load();
      } catch (error) {
        this.noteError(`${what} failed`, error as Error);
        return [];
      }
    };
    const [resources, resourceTemplates, prompts] = await Promise.all([
      optional(caps.resources, async () => (await client.listResources(undefined, { cacheMode: 'refresh' })).resources, 'resources/list'),
      optional(caps.resources, async () => (await client.listResourceTemplates(undefined, { cacheMode: 'refresh' })).resourceTemplates, 'resources/templates/list'),
      optional(caps.prompts, async () => (await client.listPrompts(undefined, { cacheMode: 'refresh' })).prompts, 'prompts/list'),
    ]);
    this.replaceTools(tools, false);
    this.update({ resources, resourceTemplates, prompts } as Partial<ServerSnapshot>);
  }

  /**
   * Every page of tools/list. The SDK reads the list strictly, so one malformed tool fails the whole
   * list; then the pages are read again as plain JSON and each tool is judged on its own
   * (acceptToolList), so the server and its other tools stay usable.
   */
  private async listTools(client: Client): Promise<unknown[]> {
    try {
      return (await client.listTools(undefined, { cacheMode: 'refresh' })).tools;
    } catch (error) {
      if (!/invalid result/i.test((error as Error).message)) throw error;
      const tools: unknown[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, RawToolsPage);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && tools.length < MAX_LISTED_TOOLS);
      return tools;
    }
  }

  private async refreshTools() {
    const client = this.client;
    if (!client || this.state.status !== 'ready') return;
    try {
      this.replaceTools(await this.listTools(client));
    } catch (error) {
      this.noteError('tools/list refresh failed', error as Error);
    }
  }

  /**
   * Output that was not JSON-RPC since `since` (a short, quoted excerpt), e.g. a traceback printed
   * where a reply should have been: what explains a call the server never answered.
   */
  noiseSince(since: number): string | undefined {
    const recent = this.noise.filter((entry) => entry.at >= since);
    if (recent.length === 0) return undefined;
    const excerpt = recent.map((entry) => entry.text).join(' | ');
    return `the server wrote output that is not JSON-RPC meanwhile: «${excerpt.length > 240 ? `${excerpt.slice(0, 240)}…` : excerpt}»`;
  }

  /**
   * Only the pipeline's MCP executor calls this: every call runs through the pipeline. While a
   * reply streams in, every call in flight hears of it (`keepAlive`): reading a large answer does
   * not count against the time the server had to answer.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const { listener } = options;
    if (listener) this.receiving.add(listener);
    try {
      return await this.callToolNow(name, args, options);
    } catch (error) {
      // SEP-1036 error path (-32042): the call needs the operator to visit a page first, then to retry.
      if (error instanceof UrlElicitationRequiredError) {
        const pages = error.elicitations.filter((e) => typeof e.url === 'string');
        throw new AppError('ExecutionFailed', `${error.message}${pages.length ? ` — ${pages.map((e) => e.message).join(' ')}` : ''}`, {
          step: URL_ELICITATION_STEP,
          details: pages.map((e) => e.url),
          retryable: false,
          cause: error,
        });
      }
      throw error;
    } finally {
      if (listener) this.receiving.delete(listener);
    }
  }

  private async callToolNow(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const client = this.requireClient();
    const definition = this.definitionOf(name);
    const result = (await client.callTool(
      options.traceparent ? { name, arguments: args, _meta: { traceparent: options.traceparent } } : { name, arguments: args },
      {
        signal: options.signal,
        timeout: options.backstopMs,
        resetTimeoutOnProgress: false,
        maxTotalTimeout: options.backstopMs,
        onprogress: options.listener && options.listener.onProgress.bind(options.listener),
        ...(definition ? { toolDefinition: definition } : {}),
      },
    )) as CallToolResult;
    const created = createdTaskIn(result);
    if (!created) {
      // The SDK took its abort listener off the signal as the request settled; a task (below) keeps it.
      options.listener?.releaseSignal?.();
      return result;
    }
    const listener = options.listener;
    return (await this.taskOps!.adopt(name, created, {
      options: options.task ?? { mode: 'wait' },
      signal: options.signal ?? new AbortController().signal,
      backstopMs: options.backstopMs,
      ...(options.traceparent ? { traceparent: options.traceparent } : {}),
      ...(listener?.onTask ? { onUpdate: listener.onTask.bind(listener) } : {}),
    })) as CallToolResult;
  }

  /** MCP tasks on this connection (task-augmented calls, tasks/get|result|list|cancel). */
  get tasks(): ConnectionTasks {
    this.requireClient();
    return this.taskOps!;
  }

  /** The tasks Tooldeck runs for this server (sampling and elicitation it asked for as tasks). */
  executorTaskList() {
    return this.executorTasks?.list() ?? [];
  }

  async readResource(uri: string) {
    return this.requireClient().readResource({ uri }, { cacheMode: 'bypass' });
  }

  async getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal) {
    return this.requireClient().getPrompt({ name, arguments: args }, signal ? { signal } : undefined);
  }

  /** completion/complete: suggestions for an argument of a prompt or a resource template (relayed for the gateway's agents). */
  async complete(params: CompleteRequest['params'], signal?: AbortSignal) {
    return this.requireClient().complete(params, signal ? { signal } : undefined);
  }

  /**
   * Asks the server for `notifications/resources/updated` of `uri` (see onResourceUpdated):
   * resources/subscribe, or in the 2026-07-28 era a `subscriptions/listen` stream naming it, whose
   * notifications reach the same handler.
   */
  async subscribeResource(uri: string) {
    const client = this.requireClient();
    if (client.getProtocolEra() !== 'modern') return void (await client.subscribeResource({ uri }));
    if (this.listens.has(uri)) return;
    const opening = client.listen({ resourceSubscriptions: [uri] });
    this.listens.set(uri, opening);
    try {
      await opening;
    } catch (error) {
      this.listens.delete(uri);
      throw error;
    }
  }

  async unsubscribeResource(uri: string) {
    const listening = this.listens.get(uri);
    if (!listening) return void (await this.requireClient().unsubscribeResource({ uri }));
    this.listens.delete(uri);
    await (await listening).close();
  }

  onResourceUpdated(listener: (uri: string) => void): () => void {
    return this.resourceUpdates.on(listener);
  }

  async notifyRootsChanged() {
    if (this.state.status === 'ready') await this.client?.sendRootsListChanged().catch(() => undefined);
  }

  /** Closes the session and, for stdio, ends the child process (no orphans). */
  async close(): Promise<void> {
    this.closedByUs = true;
    await this.dispose();
    this.setState({ status: 'closed', since: Date.now(), attempt: 0 });
  }

  /**
   * Ends the session and its child. A second call while one is under way waits for it, so whoever
   * closes last (a command's own release, then the service on exit) knows the child is gone.
   */
  private dispose(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    // Their streams end with the session.
    this.listens.clear();
    this.executorTasks?.close();
    this.options.broker.cancelForServer(this.options.config.name, 'The server connection closed');
    const previous = this.disposing;
    this.disposing = previous.then(() => (client ? this.endSession(client) : undefined));
    return this.disposing;
  }

  private async endSession(client: Client) {
    this.closedByUs = true;
    const pid = this.stdio?.pid;
    const grace = this.options.shutdownGraceMs ?? 2_000;
    // The SDK waits 2 s after closing stdin, then 2 s after SIGTERM; a shorter grace (one-shot CLI
    // commands) sends SIGTERM after it, and SIGKILL a second later to a server that ignores both.
    const hurry = pid && grace < 2_000 ? [setTimeout(() => signalProcess(pid, 'SIGTERM'), grace), setTimeout(() => signalProcess(pid, 'SIGKILL'), grace + 1_000)] : [];
    await client.close().catch(() => undefined);
    for (const timer of hurry) clearTimeout(timer);
    await this.ensureChildGone();
  }

  /** The SDK ends its child on close; make sure, so a stuck server cannot outlive us. */
  private async ensureChildGone() {
    const pid = this.stdio?.pid;
    if (!pid) return;
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 20 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
    if (alive()) signalProcess(pid, 'SIGKILL');
  }

  /**
   * The SDK skips stdout lines that are not JSON-RPC without a word; a server that prints banners,
   * logs or a traceback to stdout then just "times out". Watch the child's stdout for lines that do
   * not start like a JSON-RPC message, so the doctor (while connecting) and a call that goes
   * unanswered can say what the server printed instead. Only the start of each line is looked at,
   * so a 50 MB reply costs one scan for newlines. (Reaches into the transport's child process: if a
   * later SDK renames it, only this clue is lost.)
   */
  private watchForNonProtocolOutput(stdio: StdioClientTransport) {
    const start = stdio.start.bind(stdio);
    stdio.start = async () => {
      await start();
      const stdout = (stdio as unknown as { _process?: { stdout?: NodeJS.ReadableStream } })._process?.stdout;
      let lineStart = true;
      let noisy = false;
      let captured = '';
      const endLine = () => {
        if (noisy && captured.trim()) this.noteNonProtocolLine(captured.trim());
        lineStart = true;
        noisy = false;
        captured = '';
      };
      stdout?.on('data', (chunk: Buffer) => {
        let from = 0;
        while (from < chunk.length) {
          const newline = chunk.indexOf(0x0a, from);
          const end = newline < 0 ? chunk.length : newline;
          if (lineStart) {
            let first = from;
            while (first < end && (chunk[first] === 0x20 || chunk[first] === 0x09 || chunk[first] === 0x0d)) first++;
            if (first < end) {
              lineStart = false;
              noisy = chunk[first] !== 0x7b; // '{'
            }
          }
          if (noisy && captured.length < 300) captured += chunk.toString('utf8', from, Math.min(end, from + 300 - captured.length));
          if (newline < 0) break;
          endLine();
          from = newline + 1;
        }
      });
    };
  }

  private noteNonProtocolLine(line: string) {
    const text = JSON.stringify(line.slice(0, 200));
    this.protocolErrors.push(text);
    if (this.protocolErrors.length > 5) this.protocolErrors.shift();
    this.noise.push({ at: Date.now(), text });
    if (this.noise.length > 5) this.noise.shift();
    this.transcript.recordEvent(`Not JSON-RPC on stdout: ${line.slice(0, 300)}`);
  }

  private async failWith(failure: AppError) {
    // The SDK and the network stack quote URLs and headers as they were sent: secrets included.
    failure.message = this.options.redactor.text(failure.message);
    this.transcript.recordEvent(`Failed at ${failure.step}: ${failure.message}`);
    this.setState({ status: 'error', since: Date.now(), step: failure.step as ConnectionState['step'], message: failure.message, attempt: this.state.attempt });
    await this.dispose();
  }

  private handleClose() {
    if (this.closedByUs) return;
    const reason = this.stderrTail.length ? `The server closed the connection. stderr: ${this.stderrTail.slice(-3).join(' ⏎ ')}` : 'The server closed the connection';
    this.transcript.recordEvent(reason);
    const wasReady = this.state.status === 'ready';
    this.client = undefined;
    this.options.broker.cancelForServer(this.options.config.name, reason);
    this.setState({ status: 'error', since: Date.now(), step: 'transport', message: reason, attempt: this.state.attempt });
    if (wasReady) this.options.onUnexpectedClose(reason);
  }

  /**
   * Elicitation and sampling go to the operator (the interaction broker). A request that asks to
   * run as a task is answered with the task at once and the operator's answer is its result.
   * Returns the same answers for the requests a SEP-2663 task waits on (its `inputRequests`).
   */
  private installServerRequestHandlers(client: Client, executor: ClientTaskExecutor): InputAnswerer {
    const server = this.options.config.name;
    const { broker } = this.options;
    const elicit = async (request: { params?: unknown }, signal: AbortSignal | undefined, ownTaskId?: string) => {
      const relay = ownTaskId === undefined ? this.soleRelay() : undefined;
      if (relay?.elicit) return relay.elicit((request.params ?? {}) as Record<string, unknown>, signal) as never;
      const params = request.params as { mode?: 'form' | 'url'; message: string; requestedSchema?: Record<string, unknown>; url?: string; elicitationId?: string };
      const taskId = ownTaskId ?? relatedTaskId(params);
      const answer = await broker.ask(
        {
          kind: 'elicitation',
          server,
          mode: params.mode ?? 'form',
          message: params.message,
          requestedSchema: params.requestedSchema,
          url: params.url,
          ...(params.elicitationId ? { elicitationId: params.elicitationId } : {}),
          ...(taskId ? { relatedTaskId: taskId } : {}),
        },
        signal,
      );
      if (answer.kind !== 'elicitation') throw new AppError('InvalidInput', 'Expected an elicitation answer');
      return answer.action === 'accept' ? { action: 'accept' as const, content: (answer.content ?? {}) as Record<string, string> } : { action: answer.action };
    };
    const sample = async (request: { params?: unknown }, signal: AbortSignal | undefined, ownTaskId?: string) => {
      const relay = ownTaskId === undefined ? this.soleRelay() : undefined;
      if (relay?.sample) return relay.sample((request.params ?? {}) as Record<string, unknown>, signal) as never;
      const params = request.params as { messages: unknown[]; systemPrompt?: string; maxTokens?: number; tools?: Array<{ name: string }>; toolChoice?: { mode?: string } };
      const taskId = ownTaskId ?? relatedTaskId(params);
      const answer = await broker.ask(
        {
          kind: 'sampling',
          server,
          messages: params.messages,
          systemPrompt: params.systemPrompt,
          maxTokens: params.maxTokens,
          ...(params.tools?.length ? { tools: params.tools } : {}),
          ...(params.toolChoice ? { toolChoice: params.toolChoice } : {}),
          ...(taskId ? { relatedTaskId: taskId } : {}),
        },
        signal,
      );
      if (answer.kind !== 'sampling' || answer.action === 'reject') throw new AppError('PolicyDenied', 'The operator declined the sampling request');
      if (answer.toolUse) {
        if (!params.tools?.some((t) => t.name === answer.toolUse!.name)) throw new AppError('InvalidInput', `The server offered no tool named ${answer.toolUse.name}`);
        return { role: 'assistant' as const, model: answer.model, content: { type: 'tool_use' as const, id: `call_${randomUUID()}`, name: answer.toolUse.name, input: answer.toolUse.input }, stopReason: 'toolUse' };
      }
      return { role: 'assistant' as const, model: answer.model, content: { type: 'text' as const, text: answer.text }, stopReason: 'endTurn' };
    };
    const signalOf = (ctx: unknown) => (ctx as { mcpReq?: { signal?: AbortSignal } }).mcpReq?.signal;
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const asTask = taskAugmentation(request.params);
      if (asTask) return executor.start('elicitation/create', asTask.ttl, 'Waiting for the operator to answer', (signal, taskId) => elicit(request, signal, taskId)) as never;
      return elicit(request, signalOf(ctx));
    });
    client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
      const asTask = taskAugmentation(request.params);
      if (asTask) return executor.start('sampling/createMessage', asTask.ttl, 'Waiting for the operator to reply', (signal, taskId) => sample(request, signal, taskId)) as never;
      return sample(request, signalOf(ctx));
    });
    client.setRequestHandler('roots/list', async () => ({ roots: this.options.roots() }));
    // The server's log lines (kept in the transcript as every message is) go to the caller of the one call in flight.
    client.setNotificationHandler('notifications/message', (notification) => {
      this.soleRelay()?.log?.(notification.params as Record<string, unknown>);
    });
    // SEP-1036: the server saw the URL flow finish; a question about it still open needs no answer from the operator.
    client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
      broker.completeUrlElicitation(server, notification.params.elicitationId);
    });
    return async (method, params, signal, taskId) => {
      if (method === 'elicitation/create') return elicit({ params }, signal, taskId);
      if (method === 'sampling/createMessage') return sample({ params }, signal, taskId);
      if (method === 'roots/list') return { roots: this.options.roots() };
      throw new AppError('ExecutionFailed', `Task ${taskId} asks for ${method}, which Tooldeck does not answer.`, { retryable: false });
    };
  }

  /**
   * The relay of the one call in flight on this connection, when there is exactly one: a server's
   * question or log line mid-call belongs to that call. With several calls in flight nothing says
   * which one asked, so the operator answers (the broker), never a caller who may not own it.
   */
  private soleRelay(): CallRelay | undefined {
    if (this.receiving.size !== 1) return undefined;
    const [only] = this.receiving;
    return only!.relay;
  }

  /** A tool's definition by name, indexed once per tool list (a 1,000-tool server must not cost 1,000 comparisons a call). */
  private definitionOf(name: string): Tool | undefined {
    const tools = this.discovery.tools;
    if (this.toolIndex?.tools !== tools) this.toolIndex = { tools, byName: new Map(tools.map((t) => [t.name, t as Tool])) };
    return this.toolIndex.byName.get(name);
  }

  private toolIndex?: { tools: readonly McpTool[]; byName: Map<string, Tool> };

  private replaceTools(listed: readonly unknown[], announce = true) {
    const { tools: next, problems } = acceptToolList(listed);
    for (const problem of problems) if (!this.discovery.problems.includes(problem)) this.transcript.recordEvent(problem);
    const diff = diffToolLists(this.discovery.tools, next);
    const changed = !isEmptyDiff(diff);
    if (changed && announce) this.transcript.recordEvent(`Tool list changed: +${diff.added.length} −${diff.removed.length} ~${diff.changed.length}`);
    this.update({ tools: next, problems, ...(changed && announce ? { lastDiff: diff } : {}) });
  }

  private update(patch: Partial<typeof this.discovery>) {
    this.discovery = { ...this.discovery, ...patch };
    this.options.onChange();
  }

  private noteError(what: string, error: Error) {
    this.transcript.recordEvent(`${what}: ${error.message}`);
    this.options.logger.warn(what, { server: this.options.config.name, error: error.message });
  }

  private setState(state: ConnectionState) {
    this.state = state;
    this.options.onChange();
  }

  private requireClient(): Client {
    if (!this.client || this.state.status !== 'ready') {
      throw new AppError('ConnectionFailed', `Server "${this.options.config.name}" is not connected (${this.state.status}${this.state.message ? `: ${this.state.message}` : ''})`, { step: this.state.step });
    }
    return this.client;
  }
}

function signalProcess(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

