import { randomUUID } from 'node:crypto';
import amqp, { type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';

/**
 * A RockBot-shaped MCP bridge, hand-written for the tests from RockBot's wire format as its source
 * shows it (RockBot.Agent's McpBridgeService over RockBot.Messaging.RabbitMQ) — on amqplib, a
 * different client library than Tooldeck's, so Tooldeck is checked against the wire. Like RockBot's
 * bridge it consumes `rockbot.mcp-bridge.{agent}` on `tool.invoke.mcp`, `….refresh` on
 * `tool.meta.mcp.refresh` and `….manage` on `mcp.manage`; announces McpServersIndexed on
 * `tool.meta.mcp.{agent}` with source `mcp-bridge.{agent}`; and, like RockBot's bridge, ignores
 * `rb-destination`: a request for a server it lacks is answered `tool_not_found`.
 *
 * Its "servers" are tables of tool handlers in test code, not real MCP servers.
 */
export interface ShapedTool {
  description: string;
  parametersSchema: Record<string, unknown>;
  run(args: Record<string, unknown>): string | Promise<string>;
}

export interface ShapedServer {
  serverName: string;
  tools: Record<string, ShapedTool>;
}

export interface ReceivedRequest {
  toolName: string;
  server?: string;
  destination?: string;
  source?: string;
  timeoutMs?: string;
  traceparent?: string;
  correlationId?: string;
  replyTo?: string;
  arguments: string | null;
}

const EXCHANGE = 'rockbot';

export class RockBotShapedBridge {
  /** Every ToolInvokeRequest it received, in order (also those it answered tool_not_found). */
  readonly requests: ReceivedRequest[] = [];
  /** Every McpGetServiceDetailsRequest's server name it received. */
  readonly detailsRequests: string[] = [];
  /** How many McpMetadataRefreshRequests it has received. */
  refreshRequests = 0;
  /** How many tool_not_found replies it has published (each confirmed by the broker). */
  notFoundReplies = 0;
  private model?: ChannelModel;
  private channel?: ConfirmChannel;
  private servers: ShapedServer[];

  private constructor(
    private readonly url: string,
    readonly agent: string,
    servers: ShapedServer[],
    /** Whether it answers McpGetServiceDetailsRequest (false: as if the management request never reached it). */
    private readonly answersDetails: boolean,
  ) {
    this.servers = servers;
  }

  static async start(url: string, agent: string, servers: ShapedServer[], options: { answersDetails?: boolean } = {}): Promise<RockBotShapedBridge> {
    const bridge = new RockBotShapedBridge(url, agent, servers, options.answersDetails ?? true);
    await bridge.open();
    await bridge.announce();
    return bridge;
  }

  private async open() {
    this.model = await amqp.connect(this.url, { noDelay: true });
    this.model.on('error', () => undefined);
    const channel = (this.channel = await this.model.createConfirmChannel());
    channel.on('error', () => undefined);
    await channel.assertExchange(EXCHANGE, 'topic', { durable: true });
    await channel.assertExchange('rockbot.dlx', 'topic', { durable: true });
    await channel.prefetch(10);
    const subscribe = async (subscription: string, topic: string, handle: (message: ConsumeMessage) => Promise<void>) => {
      const queue = `rockbot.${subscription}`;
      await channel.assertQueue(queue, { durable: true, arguments: { 'x-dead-letter-exchange': 'rockbot.dlx', 'x-dead-letter-routing-key': topic } });
      await channel.bindQueue(queue, EXCHANGE, topic);
      await channel.consume(queue, (message) => {
        if (!message) return;
        // Once closed, the broker takes back what was unacknowledged: nothing to settle here.
        const settle = (ok: boolean) => {
          try {
            if (ok) channel.ack(message);
            else channel.nack(message, false, false);
          } catch {
            // the channel closed meanwhile
          }
        };
        void handle(message).then(
          () => settle(true),
          () => settle(false),
        );
      });
    };
    await subscribe(`mcp-bridge.${this.agent}`, 'tool.invoke.mcp', (message) => this.onInvoke(message));
    await subscribe(`mcp-bridge.${this.agent}.refresh`, 'tool.meta.mcp.refresh', async () => {
      this.refreshRequests++;
      await this.announce();
    });
    await subscribe(`mcp-bridge.${this.agent}.manage`, 'mcp.manage', (message) => this.onManage(message));
  }

  /** Connects again after the broker went away (its durable queues kept what came meanwhile), without announcing. */
  async reconnect(): Promise<void> {
    await this.close();
    await this.open();
  }

  /** McpServersIndexed on `tool.meta.mcp.{agent}`: every server, and those named as removed. */
  async announce(removedServers: string[] = []): Promise<void> {
    await this.publishRaw(
      `tool.meta.mcp.${this.agent}`,
      'RockBot.Tools.Mcp.McpServersIndexed',
      {
        servers: this.servers.map((server) => ({
          serverName: server.serverName,
          displayName: server.serverName,
          summary: `${Object.keys(server.tools).length} tools`,
          toolCount: Object.keys(server.tools).length,
          toolNames: Object.keys(server.tools),
        })),
        removedServers,
      },
      {},
    );
  }

  /** Drops a server (as RockBot's bridge does when one disconnects) and announces it removed. */
  async removeServer(serverName: string): Promise<void> {
    this.servers = this.servers.filter((server) => server.serverName !== serverName);
    await this.announce([serverName]);
  }

  /** Loses a tool without announcing it (as a server that changed under its bridge): calls for it are then tool_not_found. */
  forgetTool(serverName: string, toolName: string): void {
    const server = this.servers.find((candidate) => candidate.serverName === serverName);
    if (server) delete server.tools[toolName];
  }

  /** Publishes anything as this bridge (source `mcp-bridge.{agent}`), e.g. a hostile announcement. */
  async publishRaw(topic: string, type: string, body: unknown, options: { correlationId?: string; destination?: string; source?: string }): Promise<void> {
    const channel = this.channel!;
    await new Promise<void>((confirmed, refused) =>
      channel.publish(
        EXCHANGE,
        topic,
        Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
        {
          messageId: randomUUID().replaceAll('-', ''),
          type,
          ...(options.correlationId ? { correlationId: options.correlationId } : {}),
          timestamp: Math.floor(Date.now() / 1000),
          contentType: 'application/json',
          persistent: true,
          headers: { 'rb-source': options.source ?? `mcp-bridge.${this.agent}`, ...(options.destination ? { 'rb-destination': options.destination } : {}) },
        },
        (error: unknown) => (error ? refused(error instanceof Error ? error : new Error('refused')) : confirmed()),
      ),
    );
  }

  async close(): Promise<void> {
    await this.channel?.close().catch(() => undefined);
    await this.model?.close().catch(() => undefined);
  }

  private async onInvoke(message: ConsumeMessage) {
    const headers = message.properties.headers ?? {};
    const text = (value: unknown) => (value === undefined ? undefined : Buffer.isBuffer(value) ? value.toString('utf8') : String(value));
    const body = JSON.parse(message.content.toString('utf8')) as { toolCallId: string; toolName: string; arguments: string | null };
    // RockBot's subscriber strips one `rb-`: its MCP server header `rb-mcp-server` travels as `rb-rb-mcp-server`.
    const server = text(headers['rb-rb-mcp-server']);
    const request: ReceivedRequest = {
      toolName: body.toolName,
      arguments: body.arguments,
      ...(server !== undefined ? { server } : {}),
      ...(text(headers['rb-destination']) !== undefined ? { destination: text(headers['rb-destination']) } : {}),
      ...(text(headers['rb-source']) !== undefined ? { source: text(headers['rb-source']) } : {}),
      ...(text(headers['rb-rb-timeout-ms']) !== undefined ? { timeoutMs: text(headers['rb-rb-timeout-ms']) } : {}),
      ...(text(headers['rb-traceparent']) !== undefined ? { traceparent: text(headers['rb-traceparent']) } : {}),
      ...(message.properties.correlationId ? { correlationId: String(message.properties.correlationId) } : {}),
      ...(message.properties.replyTo ? { replyTo: String(message.properties.replyTo) } : {}),
    };
    this.requests.push(request);
    const replyTo = message.properties.replyTo as string | undefined;
    if (!replyTo) return;
    const candidates = server === undefined ? this.servers : this.servers.filter((candidate) => candidate.serverName.toLowerCase() === server.toLowerCase());
    const owner = candidates.find((candidate) => body.toolName in candidate.tools);
    const reply = (type: string, payload: unknown) => this.publishRaw(replyTo, type, payload, { correlationId: String(message.properties.correlationId ?? ''), ...(request.source ? { destination: request.source } : {}) });
    if (!owner) {
      await reply('RockBot.Tools.ToolError', { toolCallId: body.toolCallId, toolName: body.toolName, code: 'tool_not_found', message: `Tool '${body.toolName}' not found on server '${server ?? '(any)'}'`, isRetryable: false });
      this.notFoundReplies++;
      return;
    }
    const output = await owner.tools[body.toolName]!.run(body.arguments ? (JSON.parse(body.arguments) as Record<string, unknown>) : {});
    await reply('RockBot.Tools.ToolInvokeResponse', {
      toolCallId: body.toolCallId,
      toolName: body.toolName,
      content: output,
      isError: false,
      contentBlocks: [{ type: 'text', text: output, data: null, mimeType: null, uri: null }],
    });
  }

  private async onManage(message: ConsumeMessage) {
    if (message.properties.type !== 'RockBot.Tools.Mcp.McpGetServiceDetailsRequest') return;
    const replyTo = message.properties.replyTo as string | undefined;
    const { serverName } = JSON.parse(message.content.toString('utf8')) as { serverName: string };
    this.detailsRequests.push(serverName);
    if (!replyTo || !this.answersDetails) return;
    const server = this.servers.find((candidate) => candidate.serverName === serverName);
    await this.publishRaw(
      replyTo,
      'RockBot.Tools.Mcp.McpGetServiceDetailsResponse',
      {
        serverName,
        tools: Object.entries(server?.tools ?? {}).map(([name, tool]) => ({ name, description: tool.description, parametersSchema: JSON.stringify(tool.parametersSchema) })),
        error: server ? null : `Server '${serverName}' is not connected`,
      },
      { correlationId: String(message.properties.correlationId ?? '') },
    );
  }
}
