import type { AsyncMessage, Channel, Connection, Consumer, Publisher, SyncMessage } from 'rabbitmq-client';
import { BUS_DEAD_LETTER_PREVIEW_CHARS, BUS_DEAD_LETTERS_SHOWN, type BusConnectionState, type BusDeadLetterView, type BusPeerView, type BusStatus } from '../../shared/bus';
import { agentCaller, CallerAgentName } from '../../shared/caller';
import { AppError } from '../../shared/errors';
import type { InvocationOutcome, ToolEntry } from '../../shared/registry';
import type { AgentCall } from '../agents/Agents';
import { Emitter } from '../platform/Emitter';
import type { Logger } from '../platform/Logger';
import { checkAmqpUrl, maskAmqpUrl } from './amqpUrl';
import { busCallerIdentity, type BusIdentity } from '../agents/brokerIdentity';
import { BusTraffic, type BusExchange, type BusOutcome } from './BusTraffic';
import type { PeerBridges } from './PeerBridges';
import { RecentReplies, requestKey, type SentReply } from './RecentReplies';
import { decodeBody, decodeEnvelope, encodeBody, encodeEnvelope, newMessageId, rockbotHeader, type RockBotEnvelope } from './rockbotEnvelope';
import {
  invokeResponse,
  MCP_SERVER_HEADER,
  McpGetServiceDetailsRequest,
  McpRegisterServerRequest,
  McpUnregisterServerRequest,
  requestTimeoutMs,
  ROCKBOT_TOPICS,
  ROCKBOT_TYPES,
  TIMEOUT_HEADER,
  ToolInvokeRequest,
  toolErrorOf,
  type McpServersIndexed,
  type McpServerSummary,
  type McpToolDefinition,
  type ToolError,
} from './rockbotMessages';

export const ROCKBOT_EXCHANGE = 'rockbot';
export const ROCKBOT_DEAD_LETTER_EXCHANGE = 'rockbot.dlx';
/** Reasons kept for the Dead letters view: more than its BUS_DEAD_LETTERS_SHOWN per queue, bounded against a flood. */
const DEAD_LETTER_REASONS_KEPT = 1_000;
/** RockBot's default prefetch: at most this many requests are in this process at once (a burst waits in the broker). */
export const PREFETCH = 10;
/** How long a change of the registry settles before the servers are announced again. */
const INDEX_SETTLE_MS = 200;
const MAX_UNKNOWN_TYPES_LOGGED = 100;

/** What a handler tells rabbitmq-client to do with a message (its ConsumerStatus; the client itself is loaded only when a bridge starts). */
const ConsumerStatus = { ACK: 0, REQUEUE: 1, DROP: 2 } as const;
type ConsumerStatus = (typeof ConsumerStatus)[keyof typeof ConsumerStatus];

export interface BusBridgeDeps {
  /** The one invocation pipeline. */
  /** An agent's call (main/agents/Agents.invoke): the pipeline, the one approval hook for its `hold`, traffic and metrics. */
  invoke: (call: AgentCall) => Promise<InvocationOutcome>;
  /** Every entry of the registry, in its order (the first server that has a tool serves it). */
  entries: () => readonly ToolEntry[];
  /**
   * The entries granted to an agent (the one grants resolver), in registry order. When given, an
   * agent on the bus is served exactly these — a call or McpGetServiceDetailsRequest for anything
   * else is refused `not granted to <agent>` (deny by default); without it every entry is served.
   */
  grantedTo?: (agent: string) => readonly ToolEntry[];
  /** Subscribes to changes of the registry; returns the unsubscribe. */
  onToolsChanged: (listener: () => void) => () => void;
  /** Other bridges on the bus, whose tools become `bus:<agent>.<tool>` entries while this bridge runs. */
  peers?: PeerBridges;
  logger: Logger;
}

export interface BusBridgeStartOptions {
  /** The broker, `amqp://USER:PASSWORD@HOST:PORT/VHOST` (never shown unmasked). */
  url: string;
  /** The bridge's agent name: its queues are `rockbot.mcp-bridge.{agent}…`, its announcements `tool.meta.mcp.{agent}`. */
  agent: string;
  /** How long start waits for the broker the first time (default 30 s); later drops reconnect with backoff, however long. */
  connectTimeoutMs?: number;
  /** Discover other bridges on the bus and offer their tools as `bus:<agent>.<tool>` entries (default true). */
  discover?: boolean;
  /**
   * Take a request without the AMQP `user_id` as coming from the agent its `rb-source` header
   * names (default false: such a request is refused). Anyone who may publish on the exchange can
   * then claim to be any agent: for brokers where every publisher is trusted (RockBot's own agents
   * do not set `user_id`). A `user_id`, when set, still wins and must match `rb-source`.
   */
  trustRbSource?: boolean;
}

/** The queue RockBot's MCP bridge for `agent` consumes for one topic (its subscription `mcp-bridge.{agent}…`). */
export function bridgeQueues(agent: string) {
  const base = `rockbot.mcp-bridge.${agent}`;
  return {
    invoke: { queue: base, topic: ROCKBOT_TOPICS.invoke },
    refresh: { queue: `${base}.refresh`, topic: ROCKBOT_TOPICS.refresh },
    manage: { queue: `${base}.manage`, topic: ROCKBOT_TOPICS.manage },
  } as const;
}

interface Running {
  connection: Connection;
  publisher: Publisher;
  consumers: Consumer[];
  agent: string;
  url: string;
  /** Aborted by stop(): calls still running are canceled and their requests go back to the queue. */
  stopping: AbortController;
  stopWatching: () => void;
  indexTimer?: NodeJS.Timeout;
  /** What the last McpServersIndexed announced: server name → its tool names. */
  announced: Map<string, string>;
  /** Whether this run lent its connection to PeerBridges (discovery of other bridges). */
  discovering: boolean;
  /** BusBridgeStartOptions.trustRbSource. */
  trustRbSource: boolean;
}

/**
 * Tooldeck as a RockBot MCP bridge on RabbitMQ: RockBot agents' `ToolInvokeRequest`s on
 * `tool.invoke.mcp` run through the one invocation pipeline as `{agent, via: bus}` — the agent the
 * broker vouches for in the AMQP `user_id` (busCallerIdentity; `rb-source` only with
 * `trustRbSource`), served only its grants when grants are given — policy (a denial is a ToolError naming the rule; a call that needs approval waits for it within
 * the request's timeout), the lock, history, metrics and traces — and each gets a
 * `ToolInvokeResponse` or `ToolError` on its `reply_to`. Several bridges on the same agent's queue
 * are competing consumers; a request is acknowledged only after its reply is confirmed by the
 * broker, so a bridge that dies mid-call loses nothing (the broker redelivers it). Delivery is
 * at least once: a redelivered request whose reply this bridge already sent gets that reply again
 * (RecentReplies), but one whose bridge died after replying may run again on another bridge.
 */
export class BusBridge {
  readonly traffic = new BusTraffic();
  private running?: Running;
  private state: BusConnectionState = 'stopped';
  private lastError?: string;
  private readonly statusChanges = new Emitter();
  private readonly recentReplies = new RecentReplies();
  private readonly unknownTypesLogged = new Set<string>();
  /** Why this bridge dead-lettered a request, by message id (the broker's x-death says only `rejected`); the newest DEAD_LETTER_REASONS_KEPT. */
  private readonly deadLetterReasons = new Map<string, string>();
  /** Entries by their own tool name, in registry order; rebuilt when the registry changes. */
  private byToolName?: Map<string, ToolEntry[]>;

  constructor(private readonly deps: BusBridgeDeps) {}

  async start(options: BusBridgeStartOptions): Promise<BusStatus> {
    if (this.running) return this.status();
    const url = checkAmqpUrl(options.url);
    const agent = CallerAgentName.safeParse(options.agent);
    if (!agent.success || !/^[A-Za-z0-9._-]+$/.test(options.agent)) throw new AppError('InvalidInput', 'The agent name must be letters, digits, dots, dashes or underscores (it names RabbitMQ queues and topics).');
    const { Connection } = await import('rabbitmq-client');
    const connection = new Connection({ url, connectionName: `tooldeck-bus-bridge.${options.agent}`, retryLow: 250, retryHigh: 5000, noDelay: true });
    const running: Running = {
      connection,
      publisher: connection.createPublisher({ confirm: true, maxAttempts: 3, exchanges: [{ exchange: ROCKBOT_EXCHANGE, type: 'topic', durable: true }] }),
      consumers: [],
      agent: options.agent,
      url,
      stopping: new AbortController(),
      stopWatching: () => undefined,
      announced: new Map(),
      discovering: false,
      trustRbSource: options.trustRbSource === true,
    };
    this.running = running;
    this.setState('connecting');
    connection.on('error', (error: Error) => {
      this.lastError = error.message;
      this.deps.logger.warn('bus: broker connection problem', { broker: maskAmqpUrl(url), error: error.message });
      if (!connection.ready && this.running === running) this.setState('reconnecting');
    });
    connection.on('connection', () => {
      if (this.running !== running) return;
      this.lastError = undefined;
      this.setState('connected');
      this.announceSoon(running, true);
    });
    try {
      await connection.onConnect(options.connectTimeoutMs ?? 30_000, true);
      await this.declareDeadLetterQueues(running);
      await this.startConsumers(running);
      if (options.discover !== false && this.deps.peers) {
        running.discovering = true;
        await this.deps.peers.attach({ connection, publisher: running.publisher, ownAgent: options.agent });
      }
    } catch (error) {
      this.running = undefined;
      await this.shutDown(running);
      this.lastError = `Cannot reach the broker at ${maskAmqpUrl(url)}: ${(error as Error).message}`;
      this.setState('stopped');
      throw new AppError('ConnectionFailed', this.lastError);
    }
    running.stopWatching = this.deps.onToolsChanged(() => {
      this.byToolName = undefined;
      this.announceSoon(running, false);
    });
    this.announceSoon(running, true);
    return this.status();
  }

  /** Stops taking requests; those still running are canceled and go back to the queue for another bridge. */
  async stop(): Promise<void> {
    const running = this.running;
    if (!running) return;
    this.running = undefined;
    await this.shutDown(running);
    this.setState('stopped');
  }

  status(): BusStatus {
    const running = this.running;
    if (!running) return { state: 'stopped', ...(this.lastError ? { error: this.lastError } : {}) };
    return {
      state: this.state,
      url: maskAmqpUrl(running.url),
      agent: running.agent,
      queue: bridgeQueues(running.agent).invoke.queue,
      discovery: running.discovering,
      trustRbSource: running.trustRbSource,
      ...(this.state !== 'connected' && this.lastError ? { error: this.lastError } : {}),
    };
  }

  onStatusChange(listener: () => void): () => void {
    return this.statusChanges.on(listener);
  }

  /** Other bridges on the bus and their tools (as `bus:<agent>.<tool>` entries), while discovery runs. */
  peers(): BusPeerView[] {
    return this.deps.peers?.view() ?? [];
  }

  onPeersChange(listener: () => void): () => void {
    return this.deps.peers?.onChange(listener) ?? (() => undefined);
  }

  /** Announces the servers now (as on a refresh request); resolves once the broker has it. */
  async announce(): Promise<void> {
    if (this.running) await this.publishIndex(this.running, true);
  }

  // ── the dead-letter queues ────────────────────────────────────────────────────────────────

  /**
   * The requests waiting in the bridge's dead-letter queues (the first BUS_DEAD_LETTERS_SHOWN of
   * each), read without taking them: they are fetched unacknowledged and go back, in their order,
   * when the reading channel closes.
   */
  async deadLetters(): Promise<BusDeadLetterView[]> {
    const running = this.requireRunning();
    const channel = await running.connection.acquire();
    const letters: BusDeadLetterView[] = [];
    try {
      for (const queue of deadLetterQueues(running.agent)) {
        for (let i = 0; i < BUS_DEAD_LETTERS_SHOWN; i++) {
          const message = await channel.basicGet({ queue, noAck: false });
          if (!message) break;
          letters.push(deadLetterView(queue, message, this.deadLetterReasons));
        }
      }
    } finally {
      await channel.close().catch(() => undefined);
    }
    return letters;
  }

  /**
   * Publishes dead-lettered requests again on the topic they were first sent to (all of them, or
   * those with the given message ids), each taken off its dead-letter queue once the broker has
   * the copy. Returns how many went back. A copy keeps its AMQP `user_id` — the agent it came
   * from — which RabbitMQ accepts only from that broker user or one tagged `impersonator`: a letter
   * the bridge's broker user may not republish stays where it is, and the bridge says so.
   */
  async replayDeadLetters(messageIds?: readonly string[]): Promise<number> {
    const running = this.requireRunning();
    const wanted = messageIds ? new Set(messageIds) : undefined;
    const channel = await running.connection.acquire();
    // Copies go out on a channel of their own: one the broker refuses closes it, not the replies' publisher.
    let out: Channel | undefined;
    const refused: string[] = [];
    let replayed = 0;
    try {
      for (const queue of deadLetterQueues(running.agent)) {
        for (;;) {
          const message = await channel.basicGet({ queue, noAck: false });
          if (!message) break;
          if (wanted && !wanted.has(message.messageId ?? '')) continue;
          const { exchange: _exchange, routingKey: _routingKey, deliveryTag, redelivered: _redelivered, messageCount: _count, body, headers, ...properties } = message;
          const { 'x-death': _death, 'x-first-death-exchange': _a, 'x-first-death-queue': _b, 'x-first-death-reason': _c, ...kept } = (headers ?? {}) as Record<string, unknown>;
          if (!out) {
            out = await running.connection.acquire();
            await out.confirmSelect();
          }
          try {
            await out.basicPublish({ ...properties, headers: kept, exchange: ROCKBOT_EXCHANGE, routingKey: originalTopic(message) ?? topicOfDeadLetterQueue(running.agent, queue) }, bodyBytes(body));
          } catch (error) {
            if ((error as { code?: string }).code !== 'PRECONDITION_FAILED' || properties.userId === undefined) throw error;
            // The broker refused the user_id and closed the channel: this letter stays (unacknowledged, it goes back at the end).
            out = undefined;
            refused.push(`${message.messageId ?? '(no message id)'} (user_id ${JSON.stringify(properties.userId.slice(0, 80))})`);
            continue;
          }
          channel.basicAck({ deliveryTag });
          replayed++;
        }
      }
    } finally {
      // Those not replayed go back to their queue, in their order.
      await out?.close().catch(() => undefined);
      await channel.close().catch(() => undefined);
    }
    if (replayed > 0) this.deps.logger.info('bus: dead letters replayed', { agent: running.agent, replayed });
    if (refused.length > 0) {
      throw new AppError(
        'PolicyDenied',
        `${replayed} dead letter${replayed === 1 ? '' : 's'} went back; ${refused.length} stay${refused.length === 1 ? 's' : ''} in the dead-letter queue because the broker would not let the bridge's broker user publish as another user: ${refused.slice(0, 5).join(', ')}${refused.length > 5 ? ', …' : ''} (RabbitMQ allows that only to users tagged impersonator).`,
      );
    }
    return replayed;
  }

  /** Empties the bridge's dead-letter queues; returns how many requests were dropped. */
  async purgeDeadLetters(): Promise<number> {
    const running = this.requireRunning();
    let purged = 0;
    for (const queue of deadLetterQueues(running.agent)) purged += (await running.connection.queuePurge({ queue })).messageCount;
    this.deps.logger.info('bus: dead letters purged', { agent: running.agent, purged });
    return purged;
  }

  private requireRunning(): Running {
    if (!this.running) throw new AppError('InvalidInput', 'The bus bridge is not running: start it first.');
    return this.running;
  }

  private setState(state: BusConnectionState) {
    this.state = state;
    this.statusChanges.emit();
  }

  private async shutDown(running: Running) {
    running.stopping.abort(new AppError('Canceled', 'The bus bridge is stopping.'));
    running.stopWatching();
    clearTimeout(running.indexTimer);
    if (running.discovering) await this.deps.peers?.detach();
    // Closing a consumer waits for its handlers; requests it had prefetched go back to the queue.
    await Promise.all(running.consumers.map((consumer) => consumer.close().catch(() => undefined)));
    await running.publisher.close().catch(() => undefined);
    await running.connection.close().catch(() => undefined);
  }

  /**
   * The dead-letter queues RockBot declares beside each subscription's queue. One RockBot made
   * first (with its own retention arguments) is kept as it is and only bound.
   */
  private async declareDeadLetterQueues(running: Running) {
    const { connection } = running;
    await connection.exchangeDeclare({ exchange: ROCKBOT_EXCHANGE, type: 'topic', durable: true });
    await connection.exchangeDeclare({ exchange: ROCKBOT_DEAD_LETTER_EXCHANGE, type: 'topic', durable: true });
    for (const { queue, topic } of Object.values(bridgeQueues(running.agent))) {
      const deadLetters = `${queue}.dlq`;
      await connection.queueDeclare({ queue: deadLetters, durable: true }).catch(async (error: { code?: string }) => {
        if (error.code !== 'PRECONDITION_FAILED') throw error;
        await connection.queueDeclare({ queue: deadLetters, passive: true });
      });
      await connection.queueBind({ queue: deadLetters, exchange: ROCKBOT_DEAD_LETTER_EXCHANGE, routingKey: topic });
    }
  }

  private async startConsumers(running: Running) {
    const queues = bridgeQueues(running.agent);
    const handlers: [{ queue: string; topic: string }, (message: AsyncMessage) => Promise<ConsumerStatus>][] = [
      [queues.invoke, (message) => this.onInvoke(running, message)],
      [queues.refresh, (message) => this.onRefresh(running, message)],
      [queues.manage, (message) => this.onManage(running, message)],
    ];
    await Promise.all(
      handlers.map(([{ queue, topic }, handle]) => {
        const consumer = running.connection.createConsumer(
          {
            queue,
            queueOptions: { durable: true, arguments: { 'x-dead-letter-exchange': ROCKBOT_DEAD_LETTER_EXCHANGE, 'x-dead-letter-routing-key': topic } },
            qos: { prefetchCount: PREFETCH },
            concurrency: PREFETCH,
            // A handler throws only when its reply could not be published (the broker went away): the request goes back to the queue.
            requeue: true,
            exchanges: [
              { exchange: ROCKBOT_EXCHANGE, type: 'topic', durable: true },
              { exchange: ROCKBOT_DEAD_LETTER_EXCHANGE, type: 'topic', durable: true },
            ],
            queueBindings: [{ exchange: ROCKBOT_EXCHANGE, queue, routingKey: topic }],
          },
          handle,
        );
        consumer.on('error', (error: Error) => this.deps.logger.warn('bus: consumer problem', { queue, error: error.message }));
        running.consumers.push(consumer);
        return new Promise<void>((ready) => consumer.once('ready', ready));
      }),
    );
  }

  // ── tool.invoke.mcp ─────────────────────────────────────────────────────────────────────────

  private async onInvoke(running: Running, message: AsyncMessage): Promise<ConsumerStatus> {
    const envelope = decodeEnvelope(message);
    if (envelope.type !== ROCKBOT_TYPES.toolInvokeRequest) return this.unknownType(envelope, bridgeQueues(running.agent).invoke.queue);
    if (!this.isForThisBridge(running, envelope)) return ConsumerStatus.ACK;
    if (!envelope.replyTo) return this.deadLetter(envelope, running, 'it has no reply_to, so no answer could reach its sender');
    const identity = busCallerIdentity(envelope, running.trustRbSource);
    // A request whose sender is unknown is refused without being kept: the refusal costs nothing to make again.
    const key = envelope.messageId && identity.ok ? requestKey({ messageId: envelope.messageId, agent: identity.agent, replyTo: envelope.replyTo, body: bodyBytes(message.body) }) : undefined;
    const earlier = key ? this.recentReplies.find(key) : undefined;
    if (earlier) {
      const reply = await earlier;
      if (reply) {
        const exchange = this.traffic.started({ messageId: envelope.messageId, ...trafficAgent(identity), startedAt: Date.now() });
        await this.publishReply(running, envelope, reply);
        this.traffic.finished(exchange, { outcome: 'replayed' });
        return ConsumerStatus.ACK;
      }
    }
    const answer = () => this.answerInvoke(running, envelope, identity, message.body);
    const reply = key ? await this.recentReplies.once(key, answer) : await answer();
    // No reply: the bridge is stopping and canceled the call; another bridge takes the request.
    if (!reply) return ConsumerStatus.REQUEUE;
    await this.publishReply(running, envelope, reply);
    return ConsumerStatus.ACK;
  }

  private async answerInvoke(running: Running, envelope: RockBotEnvelope, identity: BusIdentity, body: unknown): Promise<SentReply | undefined> {
    const exchange = this.traffic.started({ messageId: envelope.messageId, ...trafficAgent(identity), startedAt: Date.now() });
    const refuse = (request: { toolCallId: string; toolName: string }, code: ToolError['code'], message: string) => {
      this.traffic.finished(exchange, { outcome: code });
      return toolErrorReply({ toolCallId: request.toolCallId, toolName: request.toolName, code, message, isRetryable: false });
    };
    const decoded = decodeBody(body);
    const loose = decoded.ok && decoded.value && typeof decoded.value === 'object' ? (decoded.value as Record<string, unknown>) : {};
    const named = { toolCallId: typeof loose.toolCallId === 'string' ? loose.toolCallId : '', toolName: typeof loose.toolName === 'string' ? loose.toolName : '' };
    if (!decoded.ok) return refuse(named, 'invalid_arguments', `The ToolInvokeRequest cannot be read: ${decoded.reason}.`);
    const parsed = ToolInvokeRequest.safeParse(decoded.value);
    if (!parsed.success) return refuse(named, 'invalid_arguments', `The ToolInvokeRequest lacks ${parsed.error.issues.map((issue) => issue.path.join('.') || 'its fields').join(', ')}: it needs toolCallId and toolName (strings) and arguments (a JSON string or null).`);
    const request = parsed.data;
    exchange.tool = request.toolName;
    const args = parseArguments(request.arguments);
    if (typeof args === 'string') return refuse(request, 'invalid_arguments', args);
    if (!identity.ok) return refuse(request, 'invalid_arguments', identity.message);
    const agent = identity.agent;
    const server = rockbotHeader(envelope, MCP_SERVER_HEADER);
    const routed = this.route(agent, request.toolName, server);
    if (!routed.entry) {
      if (routed.notGranted) return refuse(request, 'tool_not_found', `${routed.notGranted.name} is not granted to ${agent}.`);
      return refuse(request, 'tool_not_found', server ? `No tool ${request.toolName} on server ${server} in Tooldeck's registry.` : `No server in Tooldeck's registry has a tool ${request.toolName}.`);
    }
    const entry = routed.entry;
    exchange.server = entry.source.name;

    const timeoutMs = requestTimeoutMs(rockbotHeader(envelope, TIMEOUT_HEADER));
    // The approval waits within the request's timeout too: past it, the agent has stopped listening.
    // One controller per call, released when it ends (AbortSignal.any on the bridge's lasting
    // stop signal would tie every call's signal to it).
    const call = new AbortController();
    const deadline = { aborted: false };
    const timer = setTimeout(() => {
      deadline.aborted = true;
      call.abort(new AppError('Timeout', `The request's ${timeoutMs} ms timeout passed.`));
    }, timeoutMs);
    const onStop = () => call.abort(running.stopping.signal.reason);
    running.stopping.signal.addEventListener('abort', onStop, { once: true });
    const signal = call.signal;
    const outcome = await this.deps.invoke({
      caller: agentCaller(agent, 'bus', request.sessionId ? { sessionId: request.sessionId } : {}),
      name: entry.name,
      arguments: args,
      timeoutMs,
      maxTotalTimeoutMs: timeoutMs,
      signal,
      ...(envelope.traceparent ? { traceparent: envelope.traceparent } : {}),
      hold: { taskRef: `bus/${agent}/${request.sessionId ?? envelope.correlationId ?? envelope.messageId}`, signal },
    }).finally(() => {
      clearTimeout(timer);
      running.stopping.signal.removeEventListener('abort', onStop);
    });
    if (running.stopping.signal.aborted && !deadline.aborted && !outcome.result) {
      this.traffic.finished(exchange, { outcome: 'execution_failed', recordId: outcome.record.id });
      return undefined;
    }
    if (outcome.result) {
      this.traffic.finished(exchange, { outcome: outcome.result.isError ? 'tool_error' : 'ok', recordId: outcome.record.id });
      return { type: ROCKBOT_TYPES.toolInvokeResponse, body: encodeBody(invokeResponse(request, outcome.result)) };
    }
    const ended = outcome.error ?? new AppError('Internal', 'The call ended without a result.').toShape();
    // Past the deadline, whatever ended the call (the tool canceled, the approval withdrawn) the agent sees RockBot's timeout.
    const error = deadline.aborted ? { toolCallId: request.toolCallId, toolName: request.toolName, code: 'timeout' as const, message: `${entry.name} did not finish within the request's ${timeoutMs} ms timeout: ${ended.message}`, isRetryable: true } : toolErrorOf(request, ended);
    this.traffic.finished(exchange, { outcome: error.code, recordId: outcome.record.id });
    return toolErrorReply(error);
  }

  /**
   * Whether this bridge serves a request it received. Every bridge's queue binds `tool.invoke.mcp`
   * and `mcp.manage`, so a request meant for one bridge reaches all: one whose `rb-destination`
   * names another bridge is acknowledged here without running or answering (RockBot's own bridges
   * do not look at it, and answer tool_not_found when they lack the server). A request Tooldeck
   * itself published (to another bridge, from a `bus:` entry) is never run here either: that would
   * answer Tooldeck's own call with Tooldeck's own tools.
   */
  private isForThisBridge(running: Running, envelope: RockBotEnvelope): boolean {
    if (this.deps.peers && envelope.source === this.deps.peers.callerSource) return false;
    const destination = envelope.destination;
    return destination === undefined || destination === bridgeSource(running.agent) || destination === running.agent;
  }

  /**
   * What this bridge serves: every entry of the registry but those of other bridges on the bus
   * (`bus:` entries). Offering those would send a RockBot agent's call back onto the bus, where the
   * bridge that owns it already hears it: it would run twice.
   */
  private served(): ToolEntry[] {
    return this.deps.entries().filter((entry) => entry.source.kind !== 'bus');
  }

  /**
   * The entry that serves a call: on the server the header names (case aside: RockBot lower-cases
   * it), else the first server that has the tool — among the agent's grants when grants are given.
   * `notGranted`: the registry has such a tool, but not for this agent.
   */
  private route(agent: string, toolName: string, server: string | undefined): { entry?: ToolEntry; notGranted?: ToolEntry } {
    if (!this.byToolName) {
      this.byToolName = new Map();
      for (const entry of this.served()) {
        const list = this.byToolName.get(entry.toolName);
        if (list) list.push(entry);
        else this.byToolName.set(entry.toolName, [entry]);
      }
    }
    const pick = (candidates: readonly ToolEntry[]) => (server === undefined ? candidates[0] : candidates.find((entry) => entry.source.name.toLowerCase() === server.toLowerCase()));
    const inRegistry = pick(this.byToolName.get(toolName) ?? []);
    if (!this.deps.grantedTo) return inRegistry ? { entry: inRegistry } : {};
    const granted = pick(this.grantedTo(agent).filter((entry) => entry.toolName === toolName));
    if (granted) return { entry: granted };
    return inRegistry ? { notGranted: inRegistry } : {};
  }

  /** What the agent is granted, but for other bridges' tools (see served()). */
  private grantedTo(agent: string): ToolEntry[] {
    return (this.deps.grantedTo?.(agent) ?? []).filter((entry) => entry.source.kind !== 'bus');
  }

  // ── tool.meta.mcp.refresh and McpServersIndexed ────────────────────────────────────────────

  private async onRefresh(running: Running, message: AsyncMessage): Promise<ConsumerStatus> {
    const envelope = decodeEnvelope(message);
    if (envelope.type !== ROCKBOT_TYPES.metadataRefreshRequest) return this.unknownType(envelope, bridgeQueues(running.agent).refresh.queue);
    await this.publishIndex(running, true);
    return ConsumerStatus.ACK;
  }

  private announceSoon(running: Running, force: boolean) {
    clearTimeout(running.indexTimer);
    running.indexTimer = setTimeout(() => {
      this.publishIndex(running, force).catch((error: Error) => this.deps.logger.warn('bus: McpServersIndexed not published', { error: error.message }));
    }, INDEX_SETTLE_MS);
  }

  /** McpServersIndexed on `tool.meta.mcp.{agent}`: every server, and those gone since the last one; only when something changed unless forced. */
  private async publishIndex(running: Running, force: boolean) {
    const servers = serverSummaries(this.served());
    const now = new Map(servers.map((server) => [server.serverName, server.toolNames.join('\n')]));
    const removedServers = [...running.announced.keys()].filter((name) => !now.has(name));
    const changed = removedServers.length > 0 || servers.some((server) => running.announced.get(server.serverName) !== now.get(server.serverName));
    if (!force && !changed) return;
    running.announced = now;
    const index: McpServersIndexed = { servers, removedServers };
    await this.publish(running, ROCKBOT_TOPICS.serversIndexed(running.agent), { messageId: newMessageId(), type: ROCKBOT_TYPES.serversIndexed, source: bridgeSource(running.agent), headers: new Map() }, encodeBody(index));
  }

  // ── mcp.manage ─────────────────────────────────────────────────────────────────────────────

  private async onManage(running: Running, message: AsyncMessage): Promise<ConsumerStatus> {
    const envelope = decodeEnvelope(message);
    const known = [ROCKBOT_TYPES.serviceDetailsRequest, ROCKBOT_TYPES.registerServerRequest, ROCKBOT_TYPES.unregisterServerRequest] as string[];
    if (!known.includes(envelope.type)) return this.unknownType(envelope, bridgeQueues(running.agent).manage.queue);
    if (!this.isForThisBridge(running, envelope)) return ConsumerStatus.ACK;
    if (!envelope.replyTo) return this.deadLetter(envelope, running, 'it has no reply_to, so no answer could reach its sender');
    const decoded = decodeBody(message.body);
    const value = decoded.ok ? decoded.value : undefined;
    const serverNameOf = (body: unknown) => (body && typeof body === 'object' && typeof (body as { serverName?: unknown }).serverName === 'string' ? (body as { serverName: string }).serverName : '');
    let type: string;
    let reply: Record<string, unknown>;
    if (envelope.type === ROCKBOT_TYPES.serviceDetailsRequest) {
      type = ROCKBOT_TYPES.serviceDetailsResponse;
      const request = McpGetServiceDetailsRequest.safeParse(value);
      const identity = busCallerIdentity(envelope, running.trustRbSource);
      if (!request.success) reply = { serverName: serverNameOf(value), tools: [], error: 'The request needs serverName (a string).' };
      else if (!identity.ok) reply = { serverName: request.data.serverName, tools: [], error: identity.message };
      else reply = this.serviceDetails(request.data.serverName, identity.agent);
    } else {
      const register = envelope.type === ROCKBOT_TYPES.registerServerRequest;
      type = register ? ROCKBOT_TYPES.registerServerResponse : ROCKBOT_TYPES.unregisterServerResponse;
      const request = (register ? McpRegisterServerRequest : McpUnregisterServerRequest).safeParse(value);
      // Registering a server would let any agent on the bus start a command or reach a URL from this
      // machine: servers are added by the operator (console, `tooldeck mcp add`, the workspace).
      const error = request.success
        ? `Tooldeck does not let agents on the bus ${register ? 'register' : 'unregister'} servers; the operator manages them (the console, tooldeck mcp, or the workspace).`
        : 'The request needs serverName (a string).';
      reply = { serverName: serverNameOf(value), success: false, ...(register ? { summary: null } : {}), error };
    }
    await this.publishReply(running, envelope, { type, body: encodeBody(reply) });
    return ConsumerStatus.ACK;
  }

  /** A server's tools as RockBot's McpGetServiceDetailsResponse: with grants, only those granted to the agent. */
  private serviceDetails(serverName: string, agent: string): Record<string, unknown> {
    const wanted = serverName.toLowerCase();
    const onServer = (entry: ToolEntry) => entry.source.name.toLowerCase() === wanted;
    const inRegistry = this.served().filter(onServer);
    if (inRegistry.length === 0) return { serverName, tools: [], error: `No server named ${serverName} is in Tooldeck's registry.` };
    const entries = this.deps.grantedTo ? this.grantedTo(agent).filter(onServer) : inRegistry;
    if (entries.length === 0) return { serverName: inRegistry[0]!.source.name, tools: [], error: `The tools of ${inRegistry[0]!.source.name} are not granted to ${agent}.` };
    const tools: McpToolDefinition[] = entries.map((entry) => ({ name: entry.toolName, description: entry.description ?? entry.title ?? '', parametersSchema: JSON.stringify({ type: 'object', ...entry.inputSchema }) }));
    return { serverName: entries[0]!.source.name, tools, error: null };
  }

  // ── replies, dead letters, unknown types ───────────────────────────────────────────────────

  /** A reply on the request's `reply_to` topic with its correlation id, confirmed by the broker before the request is acknowledged. */
  private publishReply(running: Running, request: RockBotEnvelope, reply: SentReply): Promise<void> {
    const destination = request.source ?? request.userId;
    return this.publish(
      running,
      request.replyTo!,
      {
        messageId: newMessageId(),
        type: reply.type,
        ...(request.correlationId !== undefined ? { correlationId: request.correlationId } : {}),
        source: bridgeSource(running.agent),
        ...(destination !== undefined ? { destination } : {}),
        headers: new Map(),
      },
      reply.body,
    );
  }

  private publish(running: Running, topic: string, envelope: RockBotEnvelope, body: Buffer): Promise<void> {
    return running.publisher.send({ exchange: ROCKBOT_EXCHANGE, routingKey: topic, ...encodeEnvelope(envelope) }, body);
  }

  /** A request that cannot be answered goes to the dead-letter queue (nack, no requeue), never back to the queue. */
  private deadLetter(envelope: RockBotEnvelope, running: Running, reason: string): ConsumerStatus {
    this.deps.logger.warn('bus: request dead-lettered', { agent: running.agent, messageId: envelope.messageId, type: envelope.type, source: envelope.source, reason });
    if (envelope.messageId) {
      this.deadLetterReasons.set(envelope.messageId, reason);
      if (this.deadLetterReasons.size > DEAD_LETTER_REASONS_KEPT) this.deadLetterReasons.delete(this.deadLetterReasons.keys().next().value!);
    }
    const exchange = this.traffic.started({ messageId: envelope.messageId, ...trafficAgent(busCallerIdentity(envelope, running.trustRbSource)), startedAt: Date.now() });
    this.traffic.finished(exchange, { outcome: 'dead_lettered' });
    return ConsumerStatus.DROP;
  }

  /** A message this bridge does not serve is acknowledged (retrying would not help) and logged once per type and queue. */
  private unknownType(envelope: RockBotEnvelope, queue: string): ConsumerStatus {
    const key = `${queue}\n${envelope.type}`;
    if (!this.unknownTypesLogged.has(key) && this.unknownTypesLogged.size < MAX_UNKNOWN_TYPES_LOGGED) {
      this.unknownTypesLogged.add(key);
      this.deps.logger.warn('bus: message of a type this bridge does not serve acknowledged and dropped (logged once per type)', { queue, type: envelope.type || '(none)', messageId: envelope.messageId });
    }
    return ConsumerStatus.ACK;
  }
}

function deadLetterQueues(agent: string): string[] {
  return Object.values(bridgeQueues(agent)).map(({ queue }) => `${queue}.dlq`);
}

function topicOfDeadLetterQueue(agent: string, deadLetterQueue: string): string {
  return Object.values(bridgeQueues(agent)).find(({ queue }) => `${queue}.dlq` === deadLetterQueue)!.topic;
}

/** The routing key a dead-lettered message was first published with (the broker's x-death record). */
function originalTopic(message: SyncMessage): string | undefined {
  const deaths = message.headers?.['x-death'];
  const keys = Array.isArray(deaths) ? (deaths[0] as { 'routing-keys'?: unknown } | undefined)?.['routing-keys'] : undefined;
  return Array.isArray(keys) && typeof keys[0] === 'string' ? keys[0] : undefined;
}

/** rabbitmq-client hands JSON bodies over parsed and text as strings: back to the bytes. */
function bodyBytes(body: unknown): Buffer {
  if (Buffer.isBuffer(body)) return body;
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
}

function deadLetterView(queue: string, message: SyncMessage, bridgeReasons: ReadonlyMap<string, string>): BusDeadLetterView {
  const envelope = decodeEnvelope(message);
  const deaths = message.headers?.['x-death'];
  const reason = Array.isArray(deaths) ? (deaths[0] as { reason?: unknown } | undefined)?.reason : undefined;
  return {
    queue,
    messageId: envelope.messageId,
    type: envelope.type,
    ...(envelope.source !== undefined ? { source: envelope.source } : {}),
    ...(envelope.correlationId !== undefined ? { correlationId: envelope.correlationId } : {}),
    ...(envelope.replyTo !== undefined ? { replyTo: envelope.replyTo } : {}),
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(bridgeReasons.has(envelope.messageId) ? { bridgeReason: bridgeReasons.get(envelope.messageId)! } : {}),
    bodyPreview: bodyBytes(message.body).toString('utf8').slice(0, BUS_DEAD_LETTER_PREVIEW_CHARS),
  };
}

/** The agent a request is counted under in the Bus section: one the bridge established or the broker vouched for, never a mere claim. */
function trafficAgent(identity: BusIdentity): { agent?: string } {
  const agent = identity.ok ? identity.agent : identity.sender;
  return agent !== undefined ? { agent } : {};
}

/** The source RockBot's bridge replies as. */
function bridgeSource(agent: string): string {
  return `mcp-bridge.${agent}`;
}

function toolErrorReply(error: ToolError): SentReply {
  return { type: ROCKBOT_TYPES.toolError, body: encodeBody(error) };
}

/** The request's `arguments` (a JSON string of an object, or null/empty for none); a sentence when they are not that. */
function parseArguments(text: string | null | undefined): Record<string, unknown> | string {
  if (text === null || text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `The arguments are not JSON (${(error as Error).message}).`;
  }
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return 'The arguments must be a JSON object.';
  return value as Record<string, unknown>;
}

/** The registry as RockBot's server summaries: one per source name, in registry order. */
export function serverSummaries(entries: readonly ToolEntry[]): McpServerSummary[] {
  const byServer = new Map<string, ToolEntry[]>();
  for (const entry of entries) {
    const list = byServer.get(entry.source.name);
    if (list) list.push(entry);
    else byServer.set(entry.source.name, [entry]);
  }
  return [...byServer].map(([serverName, tools]) => ({
    serverName,
    displayName: serverName,
    summary: `${tools.length} tool${tools.length === 1 ? '' : 's'} served through Tooldeck (${tools[0]!.source.kind}): ${tools
      .slice(0, 8)
      .map((tool) => tool.toolName)
      .join(', ')}${tools.length > 8 ? ', …' : ''}`,
    toolCount: tools.length,
    toolNames: tools.map((tool) => tool.toolName),
  }));
}

export type { BusExchange, BusOutcome, BusStatus };
