import { fromBinary, fromJson, toBinary, toJson, type DescMessage, type DescMethod, type FileRegistry, type JsonValue } from '@bufbuild/protobuf';
import { AppError } from '../../shared/errors';
import type { GrpcCallResult, GrpcMethodView, GrpcServiceView } from '../../shared/grpc';
import type { ToolEntry, ToolResult } from '../../shared/registry';
import { createToolEntry, type ToolConfig } from '../registry/createToolEntry';
import { toolEntryName } from '../registry/ToolCatalog';
import type { ExecutionContext, ToolExecutor } from '../registry/types';
import { DescriptorSchemas, SchemaCapExceeded } from './descriptorSchema';
import type { CallEnd } from './GrpcChannel';
import type { GrpcConnection } from './GrpcConnection';
import { statusName } from './grpcStatus';
import type { Reflected } from './ReflectionClient';

/**
 * Bounds on what one server-streaming call keeps: every message is held for the result (and the
 * record), so a server that streams without end would otherwise fill memory. The call is canceled
 * at either cap and fails naming it; the messages before it were already shown as progress.
 */
export const SERVER_STREAM_CAPS = {
  /** Messages kept from one stream. */
  messages: 10_000,
  /** Bytes (as received, before decoding) kept from one stream. */
  bytes: 32 * 1024 * 1024,
};

interface CallableMethod {
  path: string;
  input: DescMessage;
  output: DescMessage;
  serverStreaming: boolean;
}

/** `package.Service/Method`, the registry tool name of a reflected method. */
export function methodToolName(service: string, method: string): string {
  return `${service}/${method}`;
}

/**
 * What reflection found, as views (every service and method, with request and response schemas) and
 * registry entries `grpc:<source>.<package.Service/Method>` for the methods a form can call: unary
 * and server-streaming ones. Client- and bidi-streaming methods are listed, marked unusable, and so
 * is a method whose schema exceeds a cap of `schemas` (one DescriptorSchemas per reflection, so the
 * types the methods share are built once).
 */
export function reflectedMethods(
  source: string,
  reflected: Reflected,
  config?: ToolConfig,
  schemas = new DescriptorSchemas(),
): { services: GrpcServiceView[]; entries: ToolEntry[]; methods: Map<string, CallableMethod> } {
  const entries: ToolEntry[] = [];
  const methods = new Map<string, CallableMethod>();
  const services = reflected.services.map((serviceName): GrpcServiceView => {
    const service = reflected.registry.getService(serviceName);
    if (!service) return { name: serviceName, methods: [] };
    return {
      name: serviceName,
      methods: service.methods.map((method): GrpcMethodView => {
        const name = methodToolName(serviceName, method.name);
        const clientStreaming = method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming';
        const serverStreaming = method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming';
        const view: GrpcMethodView = {
          name,
          service: serviceName,
          method: method.name,
          requestType: method.input.typeName,
          responseType: method.output.typeName,
          clientStreaming,
          serverStreaming,
          requestSchema: {},
          responseSchema: {},
        };
        try {
          view.requestSchema = schemas.messageSchema(method.input, 'request');
          view.responseSchema = schemas.messageSchema(method.output, 'response');
        } catch (error) {
          // A method whose schema exceeds a cap is listed, unusable, with the cap named; the rest still work.
          if (!(error instanceof SchemaCapExceeded)) throw error;
          return { ...view, requestSchema: {}, responseSchema: {}, unusable: `${name} cannot be called: ${error.message}.` };
        }
        const requestSchema = view.requestSchema;
        if (clientStreaming) return { ...view, unusable: 'client-streaming and bidirectional methods cannot be called from a form' };
        const path = `/${serviceName}/${method.name}`;
        methods.set(name, { path, input: method.input, output: method.output, serverStreaming });
        entries.push(
          createToolEntry({
            source: { kind: 'grpc', name: source },
            tool: { name, description: describe(method, serverStreaming), inputSchema: requestSchema },
            config,
            grpc: { path, serverStreaming },
          }),
        );
        return { ...view, registryName: toolEntryName({ kind: 'grpc', name: source }, name) };
      }),
    };
  });
  return { services, entries, methods };
}

function describe(method: DescMethod, serverStreaming: boolean): string {
  return `${serverStreaming ? 'Server-streaming' : 'Unary'} gRPC method ${method.parent.typeName}/${method.name}: ${method.input.typeName} → ${serverStreaming ? 'stream ' : ''}${method.output.typeName}`;
}

/**
 * Calls reflected methods: the arguments are the request in proto3 JSON, encoded with the server's
 * own descriptors; the result carries the response (each streamed message also arrives as progress,
 * so a view shows them as they come), the status, and the headers and trailers. A non-OK status is
 * a failure with Tooldeck's code for it.
 */
export class ReflectedMethodExecutor implements ToolExecutor {
  constructor(
    private readonly connection: GrpcConnection,
    private readonly methods: Map<string, CallableMethod>,
    private readonly registry: FileRegistry,
  ) {}

  async execute(entry: ToolEntry, args: Record<string, unknown>, ctx: ExecutionContext): Promise<ToolResult> {
    const method = this.methods.get(entry.toolName);
    if (!method) throw new AppError('ToolNotFound', `${entry.name} is not a method this server reflected.`);
    let request: Uint8Array;
    try {
      request = toBinary(method.input, fromJson(method.input, args as JsonValue, { registry: this.registry }));
    } catch (error) {
      throw new AppError('InvalidArguments', `${entry.name}: the arguments are not a ${method.input.typeName}: ${(error as Error).message}`, { step: 'validate' });
    }
    const json = (bytes: Uint8Array) => toJson(method.output, fromBinary(method.output, bytes), { registry: this.registry, alwaysEmitImplicit: true });
    try {
      if (!method.serverStreaming) {
        const { response, ...end } = await this.connection.channel.unary(method.path, request, await this.connection.options(ctx.timeoutMs, ctx.signal));
        return callResult({ response: json(response) }, end);
      }
      const responses: unknown[] = [];
      let keptBytes = 0;
      // A stream that keeps talking may outlive the per-request timeout (progress restarts it): its
      // deadline is the total limit then, and the pipeline's timer ends a stream that falls silent.
      const options = await this.connection.options(ctx.resetsOnProgress ? ctx.totalLeftMs : ctx.timeoutMs, ctx.signal);
      const end = await this.connection.channel.serverStream(
        method.path,
        request,
        (bytes) => {
          // Thrown here, the channel cancels the call and the call fails with this.
          keptBytes += bytes.byteLength;
          if (responses.length >= SERVER_STREAM_CAPS.messages) {
            throw new AppError('ExecutionFailed', `${entry.name}: the server streamed more than ${SERVER_STREAM_CAPS.messages.toLocaleString('en')} messages, the cap on one stream; the call was canceled there.`, { step: 'stream' });
          }
          if (keptBytes > SERVER_STREAM_CAPS.bytes) {
            throw new AppError('ExecutionFailed', `${entry.name}: the server streamed more than ${SERVER_STREAM_CAPS.bytes / 1024 / 1024} MiB, the cap on one stream; the call was canceled there.`, { step: 'stream' });
          }
          const message = json(bytes);
          responses.push(message);
          ctx.onProgress({ progress: responses.length, message: JSON.stringify(message) });
        },
        options,
      );
      return callResult({ responses }, end);
    } catch (error) {
      throw await this.connection.failure(error, entry.name, ctx.signal);
    }
  }
}

function callResult(body: Pick<GrpcCallResult, 'response' | 'responses'>, end: CallEnd): ToolResult {
  const structured: GrpcCallResult = { ...body, status: { code: end.code, name: statusName(end.code), details: end.details }, headers: end.headers, trailers: end.trailers };
  const shown = body.responses ?? body.response;
  return { content: [{ type: 'text', text: JSON.stringify(shown, null, 2) }], structuredContent: structured };
}
