import { randomUUID } from 'node:crypto';
import amqp, { type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';

/**
 * A RockBot-shaped agent, hand-written for the tests from RockBot's wire format as its source shows
 * it (RockBot.Messaging.RabbitMQ's publisher and subscriber, RockBot.Tools.Mcp's McpToolProxy and
 * McpManagementExecutor) — on amqplib, a different client library than the bridge's own, so the
 * bridge is checked against the wire, not against itself. It publishes ToolInvokeRequests on
 * `tool.invoke.mcp` with RockBot's envelope (AMQP properties, `rb-` headers, doubled for RockBot's
 * own `rb-…` keys) and listens for replies on `tool.result.{name}`, management replies on
 * `mcp.manage.response.{name}` and a bridge's McpServersIndexed on `tool.meta.mcp.{bridge}`.
 * RockBot's own publisher leaves the AMQP `user_id` unset; `userId` makes this agent set it (to its
 * broker user, or — to test the broker — to someone else's).
 */
export interface RockBotReply {
  type: string;
  correlationId?: string;
  messageId?: string;
  source?: string;
  body: Record<string, unknown>;
}

export interface InvokeOptions {
  /** RockBot's `rb-mcp-server` (sent doubled, `rb-rb-mcp-server`, as RockBot does; `single` sends `rb-mcp-server`). */
  server?: string;
  singlePrefixServerHeader?: boolean;
  timeoutMs?: number;
  traceparent?: string;
  sessionId?: string;
}

const EXCHANGE = 'rockbot';

export interface AgentConnectOptions {
  /** The AMQP `user_id` every message carries (RabbitMQ refuses one that is not the connection's user). Unset by default, as RockBot's publisher leaves it. */
  userId?: string;
}

export class RockBotShapedAgent {
  /** Every reply received, by correlation id (a request answered twice shows two). */
  readonly replies = new Map<string, RockBotReply[]>();
  readonly indexes: RockBotReply[] = [];
  private readonly waiting = new Map<string, (reply: RockBotReply) => void>();
  private model?: ChannelModel;
  private channel?: ConfirmChannel;

  private constructor(
    private readonly url: string,
    readonly name: string,
    private readonly bridgeAgent: string,
    private readonly options: AgentConnectOptions,
  ) {}

  static async connect(url: string, name: string, bridgeAgent: string, options: AgentConnectOptions = {}): Promise<RockBotShapedAgent> {
    const agent = new RockBotShapedAgent(url, name, bridgeAgent, options);
    await agent.open();
    return agent;
  }

  /** (Re)opens the connection and the agent's subscriptions (durable queues: replies wait there while it is away). */
  async open(): Promise<void> {
    this.model = await amqp.connect(this.url, { noDelay: true });
    this.model.on('error', () => undefined);
    const channel = (this.channel = await this.model.createConfirmChannel());
    channel.on('error', () => undefined);
    await channel.assertExchange(EXCHANGE, 'topic', { durable: true });
    await channel.assertExchange('rockbot.dlx', 'topic', { durable: true });
    const subscribe = async (subscription: string, topic: string, handle: (reply: RockBotReply) => void) => {
      const queue = `rockbot.${subscription}`;
      await channel.assertQueue(queue, {
        durable: true,
        arguments: {
          'x-dead-letter-exchange': 'rockbot.dlx',
          'x-dead-letter-routing-key': topic,
        },
      });
      await channel.bindQueue(queue, EXCHANGE, topic);
      await channel.consume(queue, (message) => {
        if (!message) return;
        handle(readReply(message));
        channel.ack(message);
      });
    };
    await subscribe(`tool-proxy.${this.name}`, `tool.result.${this.name}`, (reply) => this.received(reply));
    await subscribe(`mcp-management.${this.name}`, `mcp.manage.response.${this.name}`, (reply) => this.received(reply));
    await subscribe(`mcp-index.${this.name}`, `tool.meta.mcp.${this.bridgeAgent}`, (reply) => this.indexes.push(reply));
  }

  /** A ToolInvokeRequest as McpToolProxy sends it; resolves with its first reply. */
  async invoke(toolName: string, args: Record<string, unknown> | null, options: InvokeOptions = {}): Promise<RockBotReply> {
    const correlationId = randomUUID().replaceAll('-', '');
    const headers: Record<string, string> = {};
    if (options.server !== undefined) headers[options.singlePrefixServerHeader ? 'rb-mcp-server' : 'rb-rb-mcp-server'] = options.server;
    if (options.timeoutMs !== undefined) headers['rb-rb-timeout-ms'] = String(options.timeoutMs);
    if (options.traceparent !== undefined) headers['rb-traceparent'] = options.traceparent;
    const body = {
      toolCallId: `call-${correlationId.slice(0, 8)}`,
      toolName,
      arguments: args === null ? null : JSON.stringify(args),
      sessionId: options.sessionId ?? null,
    };
    return this.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify(body)), { correlationId, headers, replyTo: `tool.result.${this.name}` });
  }

  /** A management request as McpManagementExecutor sends it on `mcp.manage`. */
  async manage(type: string, body: Record<string, unknown>): Promise<RockBotReply> {
    return this.request('mcp.manage', `RockBot.Tools.Mcp.${type}`, Buffer.from(JSON.stringify(body)), { replyTo: `mcp.manage.response.${this.name}` });
  }

  /** Publishes anything on a topic with RockBot's envelope around it; resolves once the broker has it. */
  async publish(
    topic: string,
    type: string | undefined,
    body: Buffer,
    options: {
      correlationId?: string;
      replyTo?: string;
      headers?: Record<string, string>;
      messageId?: string;
      /** Default `rockbot`; `''` (the default exchange) puts it straight into the queue named by `topic`. */
      exchange?: string;
      /** The AMQP `user_id` of this message (default: the agent's own setting); `null` leaves it unset. */
      userId?: string | null;
      /** The `rb-source` claim (default: the agent's name); `null` leaves it out. */
      source?: string | null;
    } = {},
  ): Promise<string> {
    const messageId = options.messageId ?? randomUUID().replaceAll('-', '');
    const channel = this.channel!;
    const userId = options.userId === undefined ? this.options.userId : (options.userId ?? undefined);
    const source = options.source === undefined ? this.name : (options.source ?? undefined);
    // Confirmed one by one (waitForConfirms would wait on every message in flight, for each one).
    await new Promise<void>((confirmed, refused) =>
      channel.publish(
        options.exchange ?? EXCHANGE,
        topic,
        body,
        {
          messageId,
          ...(type !== undefined ? { type } : {}),
          ...(options.correlationId !== undefined ? { correlationId: options.correlationId } : {}),
          ...(options.replyTo !== undefined ? { replyTo: options.replyTo } : {}),
          timestamp: Math.floor(Date.now() / 1000),
          contentType: 'application/json',
          persistent: true,
          ...(userId !== undefined ? { userId } : {}),
          headers: { ...(source !== undefined ? { 'rb-source': source } : {}), ...options.headers },
        },
        (error: unknown) => (error ? refused(error instanceof Error ? error : new Error('the broker refused the message')) : confirmed()),
      ),
    );
    return messageId;
  }

  /** Publishes a request and resolves with the first reply carrying its correlation id. */
  async request(
    topic: string,
    type: string,
    body: Buffer,
    options: {
      correlationId?: string;
      replyTo: string;
      headers?: Record<string, string>;
      messageId?: string;
      userId?: string | null;
      source?: string | null;
    },
  ): Promise<RockBotReply> {
    const correlationId = options.correlationId ?? randomUUID().replaceAll('-', '');
    const answered = this.replyTo(correlationId);
    await this.publish(topic, type, body, { ...options, correlationId });
    return answered;
  }

  /** The first reply with this correlation id (already received, or when it comes). */
  replyTo(correlationId: string): Promise<RockBotReply> {
    const earlier = this.replies.get(correlationId)?.[0];
    if (earlier) return Promise.resolve(earlier);
    return new Promise((resolve) => this.waiting.set(correlationId, resolve));
  }

  /** Drops the connection at once, as a crash would. */
  async drop(): Promise<void> {
    await this.model?.close().catch(() => undefined);
    this.model = undefined;
  }

  async close(): Promise<void> {
    await this.channel?.close().catch(() => undefined);
    await this.drop();
  }

  private received(reply: RockBotReply) {
    if (!reply.correlationId) return;
    const list = this.replies.get(reply.correlationId) ?? [];
    list.push(reply);
    this.replies.set(reply.correlationId, list);
    this.waiting.get(reply.correlationId)?.(reply);
    this.waiting.delete(reply.correlationId);
  }
}

/** A delivery as RockBot's subscriber reads it: headers whose key starts with `rb-`, one prefix stripped. */
function readReply(message: ConsumeMessage): RockBotReply {
  const { properties } = message;
  const headers = properties.headers ?? {};
  const source = headers['rb-source'];
  return {
    type: String(properties.type ?? ''),
    ...(properties.correlationId ? { correlationId: String(properties.correlationId) } : {}),
    ...(properties.messageId ? { messageId: String(properties.messageId) } : {}),
    ...(source !== undefined
      ? {
          source: Buffer.isBuffer(source) ? source.toString('utf8') : String(source),
        }
      : {}),
    body: JSON.parse(message.content.toString('utf8')) as Record<string, unknown>,
  };
}
