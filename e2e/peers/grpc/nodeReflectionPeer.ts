import { join } from 'node:path';
import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';

export interface NodeReflectionPeer {
  address: string;
  stop(): Promise<void>;
}

/** The two tools the peer's tools.v1 ToolServer offers (`mirror` reverses a text). */
export const NODE_PEER_TOOLS = [
  { name: 'mirror', description: 'Reverses a text, character by character', schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'shout', description: 'Upper-cases a text', schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
];

const PROTO_ROOTS = [join(import.meta.dirname, '..', '..', '..', 'main', 'grpc', 'proto'), import.meta.dirname];

/**
 * A gRPC server built the way Node services build one: @grpc/grpc-js, descriptors from
 * @grpc/proto-loader and server reflection from the reference Node implementation @grpc/reflection
 * (v1 and v1alpha). It serves tools.v1.ToolServer and nodepeer.v1.Shapes. Its reflection does not
 * list the reflection service itself, and its descriptors name field types relative to their scope
 * (`type_name: "ToolDefinition"` where protoc writes `.tools.v1.ToolDefinition`).
 */
export async function startNodeReflectionPeer(): Promise<NodeReflectionPeer> {
  const definition = loadSync(['tools/v1/tool_server.proto', 'node_peer_for_tests.proto'], { includeDirs: PROTO_ROOTS, keepCase: true, defaults: true });
  const server = new Server();
  new ReflectionService(definition).addToServer(server);

  const toolServer: UntypedServiceImplementation = {
    ListTools: (_call: unknown, done: (error: null, reply: unknown) => void) =>
      done(null, { tools: NODE_PEER_TOOLS.map((tool) => ({ name: tool.name, description: tool.description, schema: JSON.stringify(tool.schema), version: '1.0.0', compatible_versions: [] })) }),
    ExecuteTool: (call: { request: { tool_name: string; arguments: Buffer } }, done: (error: null, reply: unknown) => void) => {
      const { text } = JSON.parse(call.request.arguments.toString() || '{}') as { text?: string };
      if (typeof text !== 'string') return done(null, { error: 'missing argument text' });
      const result = call.request.tool_name === 'mirror' ? [...text].reverse().join('') : call.request.tool_name === 'shout' ? text.toUpperCase() : undefined;
      done(null, result === undefined ? { error: `no tool named ${call.request.tool_name}` } : { result: Buffer.from(JSON.stringify({ text: result })) });
    },
  };
  const shapes: UntypedServiceImplementation = {
    Describe: (call: { request: { label: string; style?: unknown } }, done: (error: null, reply: unknown) => void) =>
      done(null, { shape: call.request, style: call.request.style, summary: `shape ${call.request.label}` }),
  };
  server.addService(definition['tools.v1.ToolServer'] as ServiceDefinition, toolServer);
  server.addService(definition['nodepeer.v1.Shapes'] as ServiceDefinition, shapes);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    address: `127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
