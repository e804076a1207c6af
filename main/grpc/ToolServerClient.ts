import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  ExecuteToolRequestSchema,
  ExecuteToolResponseSchema,
  ListToolsRequestSchema,
  ListToolsResponseSchema,
  type ExecuteToolResponse,
  type ToolDefinition,
} from './gen/tools/v1/tool_server_pb';
import type { CallOptions, GrpcChannel } from './GrpcChannel';

/** The protocol version ListTools announces (ListToolsRequest.version). */
export const TOOLS_PROTOCOL_VERSION = 'v1';

const SERVICE = '/tools.v1.ToolServer';

/** The two calls of the tools.v1 ToolServer over one channel. Failures reject with GrpcCallError. */
export class ToolServerClient {
  constructor(private readonly channel: GrpcChannel) {}

  async listTools(options: CallOptions): Promise<ToolDefinition[]> {
    const request = toBinary(ListToolsRequestSchema, create(ListToolsRequestSchema, { version: TOOLS_PROTOCOL_VERSION }));
    const { response } = await this.channel.unary(`${SERVICE}/ListTools`, request, options);
    return fromBinary(ListToolsResponseSchema, response).tools;
  }

  async executeTool(toolName: string, version: string, args: Record<string, unknown>, options: CallOptions): Promise<ExecuteToolResponse> {
    const request = create(ExecuteToolRequestSchema, { toolName, version, arguments: new TextEncoder().encode(JSON.stringify(args)) });
    const { response } = await this.channel.unary(`${SERVICE}/ExecuteTool`, toBinary(ExecuteToolRequestSchema, request), options);
    return fromBinary(ExecuteToolResponseSchema, response);
  }
}
