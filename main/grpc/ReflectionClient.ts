import { create, createFileRegistry, fromBinary, toBinary, type DescFile, type FileRegistry } from '@bufbuild/protobuf';
import {
  file_google_protobuf_any,
  file_google_protobuf_api,
  file_google_protobuf_descriptor,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_source_context,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_type,
  file_google_protobuf_wrappers,
  FileDescriptorProtoSchema,
  type DescriptorProto,
  type FileDescriptorProto,
} from '@bufbuild/protobuf/wkt';
import { protoCamelCase } from '@bufbuild/protobuf/reflect';
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { AppError, reasonOf } from '../../shared/errors';
import { ServerReflectionRequestSchema, ServerReflectionResponseSchema, type ServerReflectionRequest, type ServerReflectionResponse } from './gen/grpc/reflection/v1/reflection_pb';
import { GrpcCallError, metadataRecord, type CallOptions, type GrpcChannel } from './GrpcChannel';
import { statusName } from './grpcStatus';
import { qualifyTypeNames } from './qualifyTypeNames';

/** v1 first; servers that predate it (grpcio-reflection among them) only answer v1alpha, with the same messages. */
const REFLECTION_PATHS = ['/grpc.reflection.v1.ServerReflection/ServerReflectionInfo', '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo'];

/** Used when a server's reflection does not serve the well-known types its files import. */
const BUNDLED: Record<string, DescFile> = Object.fromEntries(
  [
    file_google_protobuf_any,
    file_google_protobuf_api,
    file_google_protobuf_descriptor,
    file_google_protobuf_duration,
    file_google_protobuf_empty,
    file_google_protobuf_field_mask,
    file_google_protobuf_source_context,
    file_google_protobuf_struct,
    file_google_protobuf_timestamp,
    file_google_protobuf_type,
    file_google_protobuf_wrappers,
  ].map((file) => [file.proto.name, file]),
);

/**
 * Bounds on what one reflection reads from a server: the descriptor files (each import is one more
 * request) and their bytes. A real API is far below both; a server that imports an endless chain of
 * files, or sends huge ones, is stopped with the cap named.
 */
export const REFLECTION_CAPS = {
  /** Descriptor files received in one reflection, each import counted. */
  files: 2_000,
  /** Bytes of descriptor files received in one reflection. */
  bytes: 32 * 1024 * 1024,
};

export interface Reflected {
  services: string[];
  registry: FileRegistry;
}

/**
 * A client of gRPC server reflection: lists the services and fetches the file descriptors that
 * define them and everything they import, over one ServerReflectionInfo stream, into a registry of
 * descriptors that encodes and decodes any of their messages.
 */
export async function reflect(channel: GrpcChannel, options: CallOptions, address: string): Promise<Reflected> {
  let session: ReflectionSession | undefined;
  let services: string[] | undefined;
  let lastError: unknown;
  for (const path of REFLECTION_PATHS) {
    session = new ReflectionSession(channel, path, options, address);
    try {
      services = await session.listServices();
      break;
    } catch (error) {
      session.close();
      lastError = error;
      if (!(error instanceof GrpcCallError && error.code === Status.UNIMPLEMENTED)) throw error;
    }
  }
  if (!services || !session) {
    throw new AppError('NotFound', `${address} does not offer gRPC server reflection (grpc.reflection.v1 and v1alpha both answered UNIMPLEMENTED); its methods cannot be listed without it.`, {
      step: 'reflection',
      cause: lastError,
    });
  }
  try {
    const files = new Map<string, FileDescriptorProto>();
    // Every import, transitively, so the registry can resolve each file it is built from. Each
    // file's imports are queued once, so the work grows with the files read (which REFLECTION_CAPS
    // bounds), however the server chains them.
    const imports: string[] = [];
    const keep = (file: FileDescriptorProto) => {
      files.set(file.name, file);
      imports.push(...file.dependency);
    };
    for (const service of services) for (const file of await session.fileContainingSymbol(service)) keep(file);
    for (let index = 0; index < imports.length; index++) {
      const name = imports[index]!;
      if (files.has(name) || BUNDLED[name]) continue;
      const found = await session.fileByFilename(name);
      if (!found.some((file) => file.name === name)) throw new AppError('ExecutionFailed', `${address} reflection did not return ${name}`, { step: 'reflection' });
      for (const file of found) keep(file);
    }
    // Names relative to their scope (as @grpc/proto-loader writes them) become fully qualified first.
    qualifyTypeNames([...files.values()], Object.values(BUNDLED).map((file) => file.proto), address);
    const resolve = (name: string) => files.get(name) ?? BUNDLED[name];
    try {
      const registries = [...files.values()].map((file) => createFileRegistry(file, resolve));
      return { services, registry: createFileRegistry(...registries) };
    } catch (error) {
      // The registry's own errors can be bare (an assertion with no message): name what was being read.
      throw new AppError('ExecutionFailed', `${address} reflection sent descriptor files that do not fit together (${[...files.keys()].join(', ')}): ${reasonOf(error, 'a type or import they name is missing')}`, {
        step: 'reflection',
        cause: error,
      });
    }
  } finally {
    session.close();
  }
}

/** Requests are answered in order on the one stream, so each waits for the next response. */
class ReflectionSession {
  private readonly call;
  private readonly pending: Array<{ resolve: (response: ServerReflectionResponse) => void; reject: (error: unknown) => void }> = [];
  private failure?: unknown;
  private receivedFiles = 0;
  private receivedBytes = 0;
  /** A cap exceeded: final, never answered by a bundled file in its place. */
  private capExceeded?: AppError;

  constructor(
    channel: GrpcChannel,
    path: string,
    options: CallOptions,
    private readonly address: string,
  ) {
    this.call = channel.bidi(path, options);
    let headers: Record<string, string> = {};
    this.call.on('metadata', (metadata) => (headers = metadataRecord(metadata)));
    this.call.on('data', (bytes: Uint8Array) => {
      const waiting = this.pending.shift();
      try {
        waiting?.resolve(fromBinary(ServerReflectionResponseSchema, bytes));
      } catch (error) {
        waiting?.reject(error);
      }
    });
    this.call.on('error', (error: ServiceError) => this.fail(new GrpcCallError(error.code, error.details, headers, metadataRecord(error.metadata))));
    this.call.on('end', () => this.fail(new GrpcCallError(Status.INTERNAL, 'the reflection stream ended early', headers, {})));
  }

  async listServices(): Promise<string[]> {
    const response = await this.ask({ case: 'listServices', value: '*' });
    if (response.messageResponse.case !== 'listServicesResponse') throw unexpected(response);
    return response.messageResponse.value.service.map((service) => service.name);
  }

  fileContainingSymbol(symbol: string): Promise<FileDescriptorProto[]> {
    return this.files({ case: 'fileContainingSymbol', value: symbol });
  }

  fileByFilename(name: string): Promise<FileDescriptorProto[]> {
    return this.files({ case: 'fileByFilename', value: name }).catch((error: unknown) => {
      if (error instanceof AppError && error.step === 'reflection' && error !== this.capExceeded && BUNDLED[name]) return [BUNDLED[name].proto];
      throw error;
    });
  }

  close(): void {
    this.pending.length = 0;
    this.call.end();
    this.call.cancel();
  }

  private async files(messageRequest: ServerReflectionRequest['messageRequest']): Promise<FileDescriptorProto[]> {
    const response = await this.ask(messageRequest);
    if (response.messageResponse.case !== 'fileDescriptorResponse') throw unexpected(response);
    const received = response.messageResponse.value.fileDescriptorProto;
    this.receivedFiles += received.length;
    this.receivedBytes += received.reduce((sum, bytes) => sum + bytes.byteLength, 0);
    if (this.receivedFiles > REFLECTION_CAPS.files) {
      throw (this.capExceeded = new AppError('ExecutionFailed', `${this.address} reflection sent more than ${REFLECTION_CAPS.files.toLocaleString('en')} descriptor files, the cap on one reflection; its methods were not listed.`, { step: 'reflection' }));
    }
    if (this.receivedBytes > REFLECTION_CAPS.bytes) {
      throw (this.capExceeded = new AppError('ExecutionFailed', `${this.address} reflection sent more than ${REFLECTION_CAPS.bytes / 1024 / 1024} MiB of descriptor files, the cap on one reflection; its methods were not listed.`, { step: 'reflection' }));
    }
    return received.map((bytes) => withDerivedJsonNames(fromBinary(FileDescriptorProtoSchema, bytes)));
  }

  private ask(messageRequest: ServerReflectionRequest['messageRequest']): Promise<ServerReflectionResponse> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.call.write(toBinary(ServerReflectionRequestSchema, create(ServerReflectionRequestSchema, { messageRequest })));
    });
  }

  private fail(error: unknown) {
    this.failure ??= error;
    for (const waiting of this.pending.splice(0)) waiting.reject(this.failure);
  }
}

/**
 * protoc fills every field's `json_name`, and descriptor registries rely on it; descriptors that
 * servers build at run time (grpcio's reflection among them) leave it out. Derived as protoc would.
 */
function withDerivedJsonNames(file: FileDescriptorProto): FileDescriptorProto {
  const visit = (message: DescriptorProto) => {
    for (const field of message.field) if (!field.jsonName) field.jsonName = protoCamelCase(field.name);
    message.nestedType.forEach(visit);
  };
  file.messageType.forEach(visit);
  return file;
}

function unexpected(response: ServerReflectionResponse): AppError {
  if (response.messageResponse.case === 'errorResponse') {
    const { errorCode, errorMessage } = response.messageResponse.value;
    return new AppError('ExecutionFailed', `server reflection answered error ${statusName(errorCode)}: ${errorMessage || 'no message'}`, { step: 'reflection' });
  }
  return new AppError('ExecutionFailed', `server reflection answered ${response.messageResponse.case ?? 'nothing'}`, { step: 'reflection' });
}
