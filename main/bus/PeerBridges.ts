import { randomBytes } from 'node:crypto';
import type { AsyncMessage, Connection, Consumer, Publisher } from 'rabbitmq-client';
import type { BusPeerView } from '../../shared/bus';
import { AppError } from '../../shared/errors';
import type { ToolEntry, ToolResult } from '../../shared/registry';
import { traceparentOf } from '../metrics/CallTracing';
import { Emitter } from '../platform/Emitter';
import type { Logger } from '../platform/Logger';
import { createToolEntry } from '../registry/createToolEntry';
import type { ToolCatalog } from '../registry/ToolCatalog';
import type { ExecutionContext, ToolExecutor } from '../registry/types';
import { checkAmqpUrl, maskAmqpUrl } from './amqpUrl';
import { decodeBody, decodeEnvelope, encodeBody, encodeEnvelope, newMessageId, type RockBotEnvelope } from './rockbotEnvelope';
import { MAX_TIMEOUT_MS, MCP_SERVER_HEADER, ROCKBOT_TOPICS, ROCKBOT_TYPES, TIMEOUT_HEADER, toolErrorAsAppError, toolResultOf } from './rockbotMessages';
import { agentOfIndexTopic, checkAgentName, MAX_PEER_BRIDGES, MAX_SERVERS_PER_BRIDGE, MAX_TOOLS_PER_BRIDGE, nameKey, readServersIndexed, readServiceDetails, type PeerServer, type PeerTool } from './peerIndex';

/** The exchange RockBot publishes on (BusBridge declares it). */
const EXCHANGE = 'rockbot';
/** How long a peer's announcements settle before its entries are registered again: a peer that floods announcements changes the registry at most this often. */
const PEER_SETTLE_MS = 200;
/** How long a bridge has to answer McpGetServiceDetailsRequest; past it the tools keep an open object schema. */
const DETAILS_TIMEOUT_MS = 5000;
/** Service-details requests waiting for an answer at once (a peer announcing many servers asks in turns). */
const MAX_DETAILS_IN_FLIGHT = 8;
/** Calls waiting for their reply at once; more are refused (the pipeline's own limits keep far below). */
const MAX_PENDING_CALLS = 1000;
/** What the broker keeps of Tooldeck's own exclusive queues: a flood waits there, bounded, not in this process. */
const DISCOVERY_QUEUE_MAX_LENGTH = 1000;
const REPLY_QUEUE_MAX_LENGTH = 10_000;
const MAX_PROBLEMS_LOGGED = 200;
/** How long a one-off call (tooldeck call bus:…) waits for the named bridge to announce itself. */
export const ANNOUNCEMENT_WAIT_MS = 5000;

/** What the bus bridge lends discovery while it runs: its connection, its confirming publisher, its own name. */
export interface BusLink {
  connection: Connection;
  publisher: Publisher;
  /** Tooldeck's own bridge agent: its announcements (and those of its replicas) are not another bridge's. */
  ownAgent: string;
}

interface KnownServer extends PeerServer {
  /** The tools' descriptions and schemas from McpGetServiceDetailsResponse, when the bridge answered. */
  details?: Map<string, PeerTool>;
  /** The tool list the details were asked for (asked again only when it changes). */
  detailsAskedFor?: string;
}

interface Peer {
  /** The agent name as the bridge spells it (its topic `tool.meta.mcp.{agent}`, its source `mcp-bridge.{agent}`). */
  agent: string;
  servers: Map<string, KnownServer>;
  lastSeenAt: number;
  settleTimer?: NodeJS.Timeout;
}

interface PendingCall {
  /** The bridge the call is for; its answer is awaited. */
  agent: string;
  /** Bridges (their `mcp-bridge.{agent}` sources) that answered tool_not_found. */
  notFound: Set<string>;
  resolve(result: ToolResult): void;
  reject(error: AppError): void;
}

interface PendingDetails {
  agent: string;
  serverName: string;
  timer: NodeJS.Timeout;
}

interface Attached extends BusLink {
  consumers: Consumer[];
}

/**
 * The other direction of RockBot's bus: tools served by other RockBot MCP bridges become registry
 * entries `bus:<agent>.<tool>`, called through the one InvocationPipeline (policy, history,
 * metrics) and, from here, over `tool.invoke.mcp`.
 *
 * Discovery: an exclusive queue bound to `tool.meta.mcp.#` reads every bridge's McpServersIndexed
 * (Tooldeck's own bridge's are skipped); on attach a McpMetadataRefreshRequest{serverName: null}
 * asks every bridge to announce again. Servers are added or updated, `removedServers` removes
 * them, as RockBot's own McpServerIndex applies an index. Descriptions and schemas come from
 * McpGetServiceDetailsRequest on `mcp.manage`; a tool keeps an open object schema until (or
 * unless) its bridge answers.
 *
 * Calling: RockBot's bridges do not honour `rb-destination`, and every bridge's queue binds
 * `tool.invoke.mcp`, so a published ToolInvokeRequest reaches every bridge; a bridge without the
 * server named by the `rb-mcp-server` header answers `tool_not_found`. So a call is published with
 * that header (the server that listed the tool), `rb-destination: mcp-bridge.{agent}` (for bridges
 * that do honour it, Tooldeck's own among them), a fresh correlation id and `reply_to` on this
 * process's own reply topic `tool.result.tooldeck-{id}`. Its answer is the first reply that is not
 * `tool_not_found`; when every bridge known to be alive (those that announced) said
 * `tool_not_found`, or the call's timeout passes, it fails with one sentence.
 *
 * Delivery: at most once per attempt from here — a request is published once with a confirm and
 * never republished by Tooldeck; a reply lost (this process restarting, its exclusive reply queue
 * gone) is a timeout, and the pipeline's retry policy (if the tool's runtime allows retries)
 * publishes a new request with a new correlation id, which the remote bridge may then run a second
 * time. On the remote side RockBot's bridge acks after replying, so a bridge that dies mid-call has
 * the request redelivered: at least once there. Two bridges listing a server of the same name both
 * run the call; the first answer wins.
 */
export class PeerBridges {
  /** This process's name on the bus: the `rb-source` of what it publishes, and its reply topic. */
  readonly callerSource = `tooldeck-${randomBytes(4).toString('hex')}`;
  readonly executor: ToolExecutor = { execute: (entry, args, ctx) => this.call(entry, args, ctx) };
  private attached?: Attached;
  /**
   * Settled while this process's reply queue is declared and bound. It is exclusive, so it goes with
   * the connection: after a reconnect, a request published before the queue is declared again would
   * have its reply dropped by the broker, so calls wait for it (within their own timeout).
   */
  private repliesReady: Promise<void> = Promise.resolve();
  private markRepliesReady?: () => void;
  /** The connection PeerBridges opened itself (a one-off call with no bus bridge running), closed by close(). */
  private own?: { connection: Connection; publisher: Publisher };
  private readonly peers = new Map<string, Peer>();
  private readonly pendingCalls = new Map<string, PendingCall>();
  private readonly pendingDetails = new Map<string, PendingDetails>();
  private readonly detailsQueue: { agent: string; serverName: string }[] = [];
  private readonly problemsLogged = new Set<string>();
  private readonly changes = new Emitter();
  private readonly announcementHandler = (message: AsyncMessage) => this.onAnnouncement(message);

  constructor(
    private readonly deps: {
      catalog: Pick<ToolCatalog, 'replaceSource' | 'removeSource'>;
      logger: Logger;
      now?: () => number;
    },
  ) {}

  get replyTopic(): string {
    return `tool.result.${this.callerSource}`;
  }

  get running(): boolean {
    return this.attached !== undefined;
  }

  /** Starts discovery on the bridge's connection and asks every bridge to announce its servers. */
  async attach(link: BusLink): Promise<void> {
    if (this.attached) return;
    const attached: Attached = { ...link, consumers: [] };
    this.attached = attached;
    const queues: [string, string[], number, (message: AsyncMessage) => void][] = [
      [`rockbot.${this.callerSource}.discovery`, ['tool.meta.mcp.#'], DISCOVERY_QUEUE_MAX_LENGTH, this.announcementHandler],
      [`rockbot.${this.callerSource}.results`, [this.replyTopic], REPLY_QUEUE_MAX_LENGTH, (message) => this.onReply(message)],
    ];
    // The connection lost or back: the exclusive reply queue is gone until its consumer is ready again.
    link.connection.on('error', () => this.attached === attached && this.repliesLost());
    link.connection.on('connection', () => this.attached === attached && this.repliesLost());
    await Promise.all(
      queues.map(([queue, topics, maxLength, handle]) => {
        const consumer = link.connection.createConsumer(
          {
            queue,
            // This process's own: gone with its connection, never shared, bounded by the broker (oldest dropped first).
            queueOptions: { exclusive: true, autoDelete: true, durable: false, arguments: { 'x-max-length': maxLength, 'x-overflow': 'drop-head' } },
            qos: { prefetchCount: 50 },
            concurrency: 1,
            requeue: false,
            queueBindings: topics.map((routingKey) => ({ exchange: EXCHANGE, queue, routingKey })),
          },
          async (message) => {
            // Handling never throws: whatever a peer sent, the message is taken off the queue.
            try {
              handle(message);
            } catch (error) {
              this.deps.logger.warn('bus: a message from another bridge could not be read', { queue, error: (error as Error).message });
            }
          },
        );
        consumer.on('error', (error: Error) => this.deps.logger.warn('bus: discovery consumer problem', { queue, error: error.message }));
        attached.consumers.push(consumer);
        if (handle !== this.announcementHandler) consumer.on('ready', () => this.repliesDeclared());
        // Exclusive queues go with their connection: once a reconnect has declared them again, every bridge announces again.
        let declared = 0;
        consumer.on('ready', () => {
          if (++declared > 1 && handle === this.announcementHandler && this.attached === attached) this.requestAnnouncements().catch(() => undefined);
        });
        return new Promise<void>((ready) => consumer.once('ready', ready));
      }),
    );
    await this.requestAnnouncements();
  }

  /**
   * Joins the bus without serving it, on a connection of its own: what a one-off `tooldeck call
   * bus:<agent>.<tool>` does (with $TOOLDECK_AMQP_URL) when no bus bridge runs in the process.
   */
  async connectAlone(url: string, timeoutMs = 10_000): Promise<void> {
    if (this.attached) return;
    checkAmqpUrl(url);
    const { Connection } = await import('rabbitmq-client');
    const connection = new Connection({ url, connectionName: this.callerSource, retryLow: 250, retryHigh: 5000, noDelay: true });
    connection.on('error', (error: Error) => this.deps.logger.warn('bus: broker connection problem', { broker: maskAmqpUrl(url), error: error.message }));
    try {
      await connection.onConnect(timeoutMs, true);
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw new AppError('ConnectionFailed', `Cannot reach the broker at ${maskAmqpUrl(url)}: ${(error as Error).message}`);
    }
    const publisher = connection.createPublisher({ confirm: true, maxAttempts: 3, exchanges: [{ exchange: EXCHANGE, type: 'topic', durable: true }] });
    this.own = { connection, publisher };
    // No bridge of its own in this process: every bridge that announces is another one.
    await this.attach({ connection, publisher, ownAgent: '' });
  }

  /** Detaches and closes the connection connectAlone opened, if any. */
  async close(): Promise<void> {
    await this.detach();
    const own = this.own;
    this.own = undefined;
    await own?.publisher.close().catch(() => undefined);
    await own?.connection.close().catch(() => undefined);
  }

  /**
   * Resolves true once `agent` has announced itself and its entries are registered, with their
   * descriptions (or once asking for them has timed out); false when it has not within `timeoutMs`.
   */
  async announced(agent: string, timeoutMs = ANNOUNCEMENT_WAIT_MS): Promise<boolean> {
    const ready = () => {
      const peer = this.peers.get(nameKey(agent));
      if (!peer || peer.settleTimer) return false;
      const waiting = [...this.pendingDetails.values()].some((item) => item.agent === peer.agent) || this.detailsQueue.some((item) => item.agent === peer.agent);
      return !waiting;
    };
    if (ready()) return true;
    return new Promise((done) => {
      const finish = (value: boolean) => {
        clearTimeout(timer);
        stop();
        done(value);
      };
      const timer = setTimeout(() => finish(ready()), timeoutMs);
      const stop = this.changes.on(() => {
        if (ready()) finish(true);
      });
    });
  }

  /** Stops discovery: waiting calls fail, and every `bus:` entry leaves the registry (nothing could call it). */
  async detach(): Promise<void> {
    const attached = this.attached;
    if (!attached) return;
    this.attached = undefined;
    this.repliesDeclared();
    await Promise.all(attached.consumers.map((consumer) => consumer.close().catch(() => undefined)));
    for (const [id, call] of this.pendingCalls) {
      this.pendingCalls.delete(id);
      call.reject(new AppError('ConnectionFailed', 'The bus bridge stopped before the other bridge answered.', { retryable: true }));
    }
    for (const details of this.pendingDetails.values()) clearTimeout(details.timer);
    this.pendingDetails.clear();
    this.detailsQueue.length = 0;
    for (const peer of this.peers.values()) {
      clearTimeout(peer.settleTimer);
      this.deps.catalog.removeSource({ kind: 'bus', name: peer.agent });
    }
    this.peers.clear();
    this.changes.emit();
  }

  /** McpMetadataRefreshRequest{serverName: null} on `tool.meta.mcp.refresh`: every bridge announces its servers again. */
  async requestAnnouncements(): Promise<void> {
    const attached = this.attached;
    if (!attached) return;
    await this.publish(attached, ROCKBOT_TOPICS.refresh, { messageId: newMessageId(), type: ROCKBOT_TYPES.metadataRefreshRequest, source: this.callerSource, headers: new Map() }, { serverName: null });
  }

  /** Whether a bridge of that name has announced itself (case aside). */
  has(agent: string): boolean {
    return this.peers.has(nameKey(agent));
  }

  /** The other bridges and their servers, as the Bus section shows them. */
  view(): BusPeerView[] {
    return [...this.peers.values()].map((peer) => ({
      agent: peer.agent,
      lastSeenAt: peer.lastSeenAt,
      servers: [...peer.servers.values()].map((server) => ({
        serverName: server.serverName,
        ...(server.displayName ? { displayName: server.displayName } : {}),
        ...(server.summary ? { summary: server.summary } : {}),
        tools: server.toolNames,
      })),
    }));
  }

  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  // ── discovery ──────────────────────────────────────────────────────────────────────────────

  private onAnnouncement(message: AsyncMessage) {
    const attached = this.attached;
    if (!attached) return;
    const envelope = decodeEnvelope(message);
    // The same queue hears tool.meta.mcp.refresh (McpMetadataRefreshRequest): not an announcement.
    if (envelope.type !== ROCKBOT_TYPES.serversIndexed) return;
    const agent = agentOfIndexTopic(message.routingKey);
    if (agent === undefined) return;
    const named = checkAgentName(agent);
    if (!named.ok) return this.problem(agent, `an announcement on tool.meta.mcp.${agent.slice(0, 64)} was ignored: ${named.reason}`);
    if (nameKey(agent) === nameKey(attached.ownAgent)) return;
    // A RockBot bridge announces as mcp-bridge.{agent}; one claiming another bridge's topic is not believed.
    if (envelope.source !== undefined && envelope.source !== `mcp-bridge.${agent}`) return this.problem(agent, `an announcement on tool.meta.mcp.${agent} came from ${envelope.source.slice(0, 80)}, not mcp-bridge.${agent}, and was ignored`);
    let peer = this.peers.get(nameKey(agent));
    if (peer && peer.agent !== agent) return this.problem(agent, `an announcement from ${agent} was ignored: a bridge named ${peer.agent} (the same name but for case) was heard first`);
    if (!peer) {
      if (this.peers.size >= MAX_PEER_BRIDGES) return this.problem(agent, `the bridge ${agent} was ignored: ${MAX_PEER_BRIDGES} other bridges are already known`);
      peer = { agent, servers: new Map(), lastSeenAt: 0 };
      this.peers.set(nameKey(agent), peer);
    }
    peer.lastSeenAt = (this.deps.now ?? Date.now)();
    const decoded = decodeBody(message.body);
    const update = readServersIndexed(decoded.ok ? decoded.value : undefined);
    if (!decoded.ok) update.problems.unshift(decoded.reason);
    for (const text of update.problems) this.problem(agent, `McpServersIndexed from ${agent}: ${text}`);
    for (const removed of update.removedServers) peer.servers.delete(nameKey(removed));
    for (const server of update.servers) {
      const earlier = peer.servers.get(nameKey(server.serverName));
      // The bound holds across announcements too: a peer naming a new server each time gains nothing past it.
      if (!earlier && peer.servers.size >= MAX_SERVERS_PER_BRIDGE) {
        this.problem(agent, `McpServersIndexed from ${agent}: servers beyond the first ${MAX_SERVERS_PER_BRIDGE} were dropped`);
        continue;
      }
      const sameTools = earlier && earlier.toolNames.join('\n') === server.toolNames.join('\n');
      peer.servers.set(nameKey(server.serverName), { ...server, ...(sameTools && earlier.details ? { details: earlier.details } : {}), ...(sameTools && earlier.detailsAskedFor ? { detailsAskedFor: earlier.detailsAskedFor } : {}) });
    }
    this.settle(peer);
  }

  /** Registers the peer's entries once its announcements settle: one registry change for a burst of them. */
  private settle(peer: Peer) {
    if (peer.settleTimer) return;
    peer.settleTimer = setTimeout(() => {
      peer.settleTimer = undefined;
      if (this.peers.get(nameKey(peer.agent)) !== peer) return;
      this.register(peer);
      for (const server of peer.servers.values()) this.askDetails(peer, server);
    }, PEER_SETTLE_MS);
  }

  /** The peer's tools as `bus:<agent>.<tool>` entries (the first server listing a tool keeps it). */
  private register(peer: Peer) {
    const entries: ToolEntry[] = [];
    const seen = new Set<string>();
    for (const server of peer.servers.values()) {
      for (const toolName of server.toolNames) {
        if (seen.has(nameKey(toolName)) || entries.length >= MAX_TOOLS_PER_BRIDGE) continue;
        seen.add(nameKey(toolName));
        const details = server.details?.get(toolName);
        entries.push(
          createToolEntry({
            source: { kind: 'bus', name: peer.agent },
            tool: {
              name: toolName,
              description: details?.description ?? `${toolName} on ${server.displayName ?? server.serverName}, served by the RockBot bridge ${peer.agent}`,
              // Open until the bridge tells the schema: the bridge itself validates what it receives.
              inputSchema: details?.inputSchema ?? { type: 'object', additionalProperties: true },
            },
          }),
        );
      }
    }
    try {
      if (entries.length > 0) this.deps.catalog.replaceSource({ kind: 'bus', name: peer.agent }, entries, this.executor);
      else this.deps.catalog.removeSource({ kind: 'bus', name: peer.agent });
    } catch (error) {
      this.problem(peer.agent, `the tools of ${peer.agent} could not be registered: ${(error as Error).message}`);
    }
    this.changes.emit();
  }

  /** McpGetServiceDetailsRequest{serverName} on `mcp.manage`, once per tool list, a few at a time. */
  private askDetails(peer: Peer, server: KnownServer) {
    const toolList = server.toolNames.join('\n');
    if (server.toolNames.length === 0 || server.detailsAskedFor === toolList) return;
    server.detailsAskedFor = toolList;
    if (!this.detailsQueue.some((item) => item.agent === peer.agent && nameKey(item.serverName) === nameKey(server.serverName))) {
      this.detailsQueue.push({ agent: peer.agent, serverName: server.serverName });
    }
    this.sendDetailsRequests();
  }

  private sendDetailsRequests() {
    const attached = this.attached;
    while (attached && this.pendingDetails.size < MAX_DETAILS_IN_FLIGHT && this.detailsQueue.length > 0) {
      const { agent, serverName } = this.detailsQueue.shift()!;
      if (!this.peers.get(nameKey(agent))?.servers.has(nameKey(serverName))) continue;
      const correlationId = newMessageId();
      const timer = setTimeout(() => {
        this.pendingDetails.delete(correlationId);
        this.sendDetailsRequests();
        this.changes.emit();
      }, DETAILS_TIMEOUT_MS);
      this.pendingDetails.set(correlationId, { agent, serverName, timer });
      this.publish(
        attached,
        ROCKBOT_TOPICS.manage,
        { messageId: newMessageId(), type: ROCKBOT_TYPES.serviceDetailsRequest, correlationId, replyTo: this.replyTopic, source: this.callerSource, destination: `mcp-bridge.${agent}`, headers: new Map() },
        { serverName },
      ).catch((error: Error) => this.deps.logger.warn('bus: McpGetServiceDetailsRequest not published', { agent, serverName, error: error.message }));
    }
  }

  private onDetails(envelope: RockBotEnvelope, body: unknown) {
    const pending = envelope.correlationId ? this.pendingDetails.get(envelope.correlationId) : undefined;
    // Every bridge's manage queue binds mcp.manage: only the asked bridge's answer counts.
    if (!pending || envelope.source !== `mcp-bridge.${pending.agent}`) return;
    const decoded = decodeBody(body);
    const tools = decoded.ok ? readServiceDetails(decoded.value, pending.serverName) : undefined;
    if (!tools) return;
    clearTimeout(pending.timer);
    this.pendingDetails.delete(envelope.correlationId!);
    const peer = this.peers.get(nameKey(pending.agent));
    const server = peer?.servers.get(nameKey(pending.serverName));
    if (peer && server) {
      server.details = tools;
      this.register(peer);
    }
    this.sendDetailsRequests();
  }

  private repliesLost() {
    if (this.markRepliesReady) return;
    this.repliesReady = new Promise<void>((ready) => (this.markRepliesReady = ready));
  }

  private repliesDeclared() {
    this.markRepliesReady?.();
    this.markRepliesReady = undefined;
  }

  // ── calls ──────────────────────────────────────────────────────────────────────────────────

  private async call(entry: ToolEntry, args: Record<string, unknown>, ctx: ExecutionContext): Promise<ToolResult> {
    const attached = this.attached;
    if (!attached) throw new AppError('ConnectionFailed', `${entry.name} is served over RockBot's bus, and the bus bridge is not running: start it (tooldeck bus bridge, or the Bus section) to call it.`);
    const peer = this.peers.get(nameKey(entry.source.name));
    // The server whose listing made the entry: the first that lists the tool (as register() keeps it).
    const server = peer && [...peer.servers.values()].find((candidate) => candidate.toolNames.some((name) => nameKey(name) === nameKey(entry.toolName)));
    if (!peer || !server) throw new AppError('ToolNotFound', `No bridge on the bus announces ${entry.toolName} for ${entry.source.name} any more.`);
    if (this.pendingCalls.size >= MAX_PENDING_CALLS) throw new AppError('ExecutionFailed', `${MAX_PENDING_CALLS} calls over the bus are already waiting for their replies.`, { retryable: true });
    ctx.signal.throwIfAborted();
    const correlationId = newMessageId();
    const answered = new Promise<ToolResult>((resolve, reject) => {
      const pending: PendingCall = { agent: peer.agent, notFound: new Set(), resolve, reject };
      this.pendingCalls.set(correlationId, pending);
    });
    // Settled by an abort while the request is still being published: read below, or not at all.
    answered.catch(() => undefined);
    const onAbort = () => this.settleCall(correlationId, undefined, ctx.signal.reason instanceof AppError ? ctx.signal.reason : new AppError('Canceled', 'The call was canceled.'));
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      // After a reconnect, not before the reply queue is back (an abort or timeout ends the wait).
      await Promise.race([this.repliesReady, answered]);
      const timeoutMs = Math.max(1, Math.min(Math.floor(ctx.timeoutMs), MAX_TIMEOUT_MS));
      await this.publish(
        attached,
        ROCKBOT_TOPICS.invoke,
        {
          messageId: newMessageId(),
          type: ROCKBOT_TYPES.toolInvokeRequest,
          correlationId,
          replyTo: this.replyTopic,
          source: this.callerSource,
          destination: `mcp-bridge.${peer.agent}`,
          ...(ctx.span ? { traceparent: traceparentOf(ctx.span) } : {}),
          // Travel as rb-rb-mcp-server and rb-rb-timeout-ms, as RockBot's McpToolProxy sends them.
          headers: new Map([
            [MCP_SERVER_HEADER, server.serverName],
            [TIMEOUT_HEADER, String(timeoutMs)],
          ]),
        },
        { toolCallId: `tooldeck-${correlationId.slice(0, 12)}`, toolName: entry.toolName, arguments: JSON.stringify(args), sessionId: null },
      ).catch((error: Error) => {
        throw new AppError('ConnectionFailed', `The call could not be published on the bus: ${error.message}`, { retryable: true });
      });
      return await answered;
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      this.pendingCalls.delete(correlationId);
    }
  }

  private settleCall(correlationId: string, result: ToolResult | undefined, error?: AppError) {
    const pending = this.pendingCalls.get(correlationId);
    if (!pending) return;
    this.pendingCalls.delete(correlationId);
    if (result) pending.resolve(result);
    else pending.reject(error!);
  }

  private onReply(message: AsyncMessage) {
    const envelope = decodeEnvelope(message);
    if (envelope.type === ROCKBOT_TYPES.serviceDetailsResponse) return this.onDetails(envelope, message.body);
    const pending = envelope.correlationId ? this.pendingCalls.get(envelope.correlationId) : undefined;
    if (!pending) return;
    const correlationId = envelope.correlationId!;
    const decoded = decodeBody(message.body);
    if (envelope.type === ROCKBOT_TYPES.toolInvokeResponse) {
      const result = decoded.ok ? toolResultOf(decoded.value) : undefined;
      if (result) this.settleCall(correlationId, result);
      else this.settleCall(correlationId, undefined, new AppError('ExecutionFailed', `The reply from ${envelope.source ?? 'a bridge'} is not a ToolInvokeResponse that can be read${decoded.ok ? '' : ` (${decoded.reason})`}.`));
      return;
    }
    if (envelope.type !== ROCKBOT_TYPES.toolError) return;
    const error = decoded.ok ? toolErrorAsAppError(decoded.value, envelope.source) : undefined;
    if (error === 'tool_not_found') {
      // Every bridge hears the request; those without the server say so. Only when every bridge known to be alive has, nobody will answer.
      if (envelope.source) pending.notFound.add(envelope.source);
      const alive = [...this.peers.values()].map((peer) => `mcp-bridge.${peer.agent}`);
      if (alive.every((source) => pending.notFound.has(source))) {
        this.settleCall(correlationId, undefined, new AppError('ToolNotFound', `No bridge on the bus has this tool any more: every bridge known to be alive (${[...pending.notFound].join(', ')}) answered tool_not_found.`));
      }
      return;
    }
    this.settleCall(correlationId, undefined, error ?? new AppError('ExecutionFailed', `The ToolError from ${envelope.source ?? 'a bridge'} cannot be read.`));
  }

  // ── helpers ────────────────────────────────────────────────────────────────────────────────

  private publish(attached: Attached, topic: string, envelope: RockBotEnvelope, body: unknown): Promise<void> {
    return attached.publisher.send({ exchange: EXCHANGE, routingKey: topic, ...encodeEnvelope(envelope) }, encodeBody(body));
  }

  /** Logs what a peer sent that was dropped, once per peer and sentence (bounded). */
  private problem(agent: string, text: string) {
    const key = `${agent}\n${text}`;
    if (this.problemsLogged.has(key) || this.problemsLogged.size >= MAX_PROBLEMS_LOGGED) return;
    this.problemsLogged.add(key);
    this.deps.logger.warn(`bus: ${text}`, { agent: agent.slice(0, 128) });
  }
}
