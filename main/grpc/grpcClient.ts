// The gRPC client side (grpc-js, protobuf reflection, the tools.v1 client), loaded by GrpcSources
// when a gRPC source is first reached: a host or command that never calls one, such as
// `tooldeck mcp call`, does not pay for loading it.
export { GrpcConnection } from './GrpcConnection';
export { ReflectedMethodExecutor, reflectedMethods } from './ReflectedMethods';
export { reflect } from './ReflectionClient';
export { ToolServerClient } from './ToolServerClient';
export { ToolServerExecutor } from './ToolServerExecutor';
