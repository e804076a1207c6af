import * as grpc from '@grpc/grpc-js';
import type { GrpcTlsInput } from '../../shared/grpc';

/** Where and how to dial, with the client key already read from the secret store. */
export interface ChannelSettings {
  address: string;
  tls: GrpcTlsInput;
}

export interface CallOptions {
  /** Absolute deadline sent to the server (`grpc-timeout`). */
  deadline?: Date;
  signal?: AbortSignal;
  metadata?: Record<string, string>;
}

/** What came back besides the message(s): the status and both sets of metadata. */
export interface CallEnd {
  code: number;
  details: string;
  headers: Record<string, string>;
  trailers: Record<string, string>;
}

/** A failed call: the status as a grpc-js ServiceError, with the metadata that came with it. */
export class GrpcCallError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
    readonly headers: Record<string, string>,
    readonly trailers: Record<string, string>,
  ) {
    super(details);
    this.name = 'GrpcCallError';
  }
}

const passBytes = (value: Uint8Array) => Buffer.from(value.buffer, value.byteOffset, value.byteLength);
const keepBytes = (value: Buffer): Uint8Array => value;

/**
 * One HTTP/2 channel to a server through @grpc/grpc-js, carrying raw message bytes: callers encode
 * and decode with @bufbuild/protobuf (generated schemas for tools.v1 and reflection, descriptors
 * from reflection for any other service). Plaintext, TLS with the system's or a given CA, or mTLS.
 */
export class GrpcChannel {
  private readonly client: grpc.Client;

  constructor(readonly settings: ChannelSettings) {
    this.client = new grpc.Client(settings.address, credentialsFor(settings.tls), channelOptions(settings.tls));
  }

  unary(path: string, request: Uint8Array, options: CallOptions = {}): Promise<{ response: Uint8Array } & CallEnd> {
    return new Promise((resolve, reject) => {
      let response: Uint8Array | undefined;
      let headers: Record<string, string> = {};
      const call = this.client.makeUnaryRequest(path, passBytes, keepBytes, request, toMetadata(options.metadata), callOptions(options), (error, value) => {
        if (!error) response = value;
      });
      call.on('metadata', (metadata: grpc.Metadata) => (headers = metadataRecord(metadata)));
      call.on('status', (status: grpc.StatusObject) => {
        options.signal?.removeEventListener('abort', cancel);
        const end = { code: status.code, details: status.details, headers, trailers: metadataRecord(status.metadata) };
        if (status.code === grpc.status.OK && response) resolve({ response, ...end });
        else reject(new GrpcCallError(status.code === grpc.status.OK ? grpc.status.INTERNAL : status.code, status.code === grpc.status.OK ? 'the server sent no response message' : status.details, headers, end.trailers));
      });
      const cancel = () => call.cancel();
      if (options.signal?.aborted) call.cancel();
      options.signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  /** A server-streaming call: `onMessage` sees each message as it arrives; resolves at the OK status. */
  serverStream(path: string, request: Uint8Array, onMessage: (message: Uint8Array) => void, options: CallOptions = {}): Promise<CallEnd> {
    return new Promise((resolve, reject) => {
      let headers: Record<string, string> = {};
      const call = this.client.makeServerStreamRequest(path, passBytes, keepBytes, request, toMetadata(options.metadata), callOptions(options));
      const cancel = () => call.cancel();
      call.on('metadata', (metadata: grpc.Metadata) => (headers = metadataRecord(metadata)));
      call.on('data', (message: Uint8Array) => {
        try {
          onMessage(message);
        } catch (error) {
          call.cancel();
          reject(error);
        }
      });
      // An error event comes with every non-OK status; the status event carries the trailers either way.
      call.on('error', () => undefined);
      call.on('status', (status: grpc.StatusObject) => {
        options.signal?.removeEventListener('abort', cancel);
        const end = { code: status.code, details: status.details, headers, trailers: metadataRecord(status.metadata) };
        if (status.code === grpc.status.OK) resolve(end);
        else reject(new GrpcCallError(status.code, status.details, headers, end.trailers));
      });
      if (options.signal?.aborted) call.cancel();
      options.signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  /** A bidirectional stream of raw messages (server reflection). */
  bidi(path: string, options: CallOptions = {}): grpc.ClientDuplexStream<Uint8Array, Uint8Array> {
    return this.client.makeBidiStreamRequest(path, passBytes, keepBytes, toMetadata(options.metadata), callOptions(options));
  }

  close(): void {
    this.client.close();
  }
}

function credentialsFor(tls: GrpcTlsInput): grpc.ChannelCredentials {
  if (tls.mode === 'plaintext') return grpc.credentials.createInsecure();
  const pem = (text: string | undefined) => (text ? Buffer.from(text) : null);
  return grpc.credentials.createSsl(pem(tls.ca), tls.mode === 'mtls' ? pem(tls.key) : null, tls.mode === 'mtls' ? pem(tls.cert) : null);
}

function channelOptions(tls: GrpcTlsInput): grpc.ChannelOptions {
  // The pipeline owns retries (the tool's runtime policy): the channel must not retry on its own too.
  const options: grpc.ChannelOptions = { 'grpc.enable_retries': 0 };
  if (tls.mode !== 'plaintext' && tls.serverName) {
    options['grpc.ssl_target_name_override'] = tls.serverName;
    options['grpc.default_authority'] = tls.serverName;
  }
  return options;
}

function callOptions(options: CallOptions): grpc.CallOptions {
  return options.deadline ? { deadline: options.deadline } : {};
}

function toMetadata(values: Record<string, string> | undefined): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(values ?? {})) metadata.set(key, value);
  return metadata;
}

/** Metadata as text: binary (`-bin`) values in base64, repeated keys joined with ", ". */
export function metadataRecord(metadata: grpc.Metadata | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [key, values] of Object.entries(metadata?.toJSON() ?? {})) {
    record[key] = values.map((value) => (typeof value === 'string' ? value : Buffer.from(value).toString('base64'))).join(', ');
  }
  return record;
}
