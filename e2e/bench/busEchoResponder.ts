// The bus bench's baseline: a bare amqplib echo responder on the same broker — what answering a
// RockBot ToolInvokeRequest costs with nothing in between (no pipeline, no MCP server). It consumes
// like the bridge (prefetch 10, manual acks, the reply confirmed by the broker before the ack) and
// answers `Echo: <message>` as a ToolInvokeResponse. Run by e2e/bench/bus.bench.ts as its own process.
import amqp from 'amqplib';

const [url, topic, queue] = process.argv.slice(2) as [string, string, string];
const connection = await amqp.connect(url, { noDelay: true });
const channel = await connection.createConfirmChannel();
await channel.assertExchange('rockbot', 'topic', { durable: true });
await channel.assertQueue(queue, { durable: true });
await channel.bindQueue(queue, 'rockbot', topic);
await channel.prefetch(10);
await channel.consume(queue, (message) => {
  if (!message) return;
  const request = JSON.parse(message.content.toString('utf8')) as { toolCallId: string; toolName: string; arguments: string };
  const text = `Echo: ${(JSON.parse(request.arguments) as { message: string }).message}`;
  const body = { toolCallId: request.toolCallId, toolName: request.toolName, content: text, isError: false, contentBlocks: [{ type: 'text', text, data: null, mimeType: null, uri: null }] };
  channel.publish(
    'rockbot',
    String(message.properties.replyTo),
    Buffer.from(JSON.stringify(body)),
    { messageId: crypto.randomUUID().replaceAll('-', ''), type: 'RockBot.Tools.ToolInvokeResponse', correlationId: message.properties.correlationId, contentType: 'application/json', persistent: true, timestamp: Math.floor(Date.now() / 1000), headers: { 'rb-source': 'bare-echo' } },
    () => channel.ack(message),
  );
});
console.log('ready');
process.on('SIGTERM', () => void connection.close().finally(() => process.exit(0)));
