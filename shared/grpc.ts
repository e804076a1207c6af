import { z } from 'zod';
import { AppErrorShape } from './errors';

export const GrpcSourceName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'Use letters, digits, "-" and "_"');

const HOST_PORT = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)):(\d{1,5})$/;

/** `host:port` (`[::1]:port` for IPv6) split into its parts; undefined when it is not one. */
export function parseGrpcAddress(address: string): { host: string; port: number } | undefined {
  const match = HOST_PORT.exec(address.trim());
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1] ?? match[2]!, port };
}

export const GrpcAddress = z.string().refine((value) => parseGrpcAddress(value) !== undefined, 'Give host:port, e.g. 127.0.0.1:50051 or [::1]:50051');

/** How the channel is secured. Certificates are PEM text; the client key is kept in the secret store. */
export const GrpcTlsMode = z.enum(['plaintext', 'tls', 'mtls']);
export type GrpcTlsMode = z.infer<typeof GrpcTlsMode>;

const PEM = z.string().refine((value) => /-----BEGIN [A-Z0-9 ]+-----/.test(value), 'is not PEM text (-----BEGIN …-----)');

export const GrpcTlsInput = z
  .object({
    mode: GrpcTlsMode,
    /** Roots to trust instead of the system's (a private CA). */
    ca: PEM.optional(),
    /** mTLS: the client certificate chain and its private key. */
    cert: PEM.optional(),
    key: PEM.optional(),
    /** The name the server's certificate must carry, when it differs from the host dialled. */
    serverName: z.string().min(1).optional(),
  })
  .superRefine((tls, ctx) => {
    if (tls.mode === 'mtls' && (!tls.cert || !tls.key)) ctx.addIssue({ code: 'custom', path: ['cert'], message: 'mTLS needs a client certificate and its key' });
    if (tls.mode === 'plaintext' && (tls.ca || tls.cert || tls.key)) ctx.addIssue({ code: 'custom', path: ['mode'], message: 'certificates need TLS: choose tls or mtls' });
    if (tls.mode === 'tls' && (tls.cert || tls.key)) ctx.addIssue({ code: 'custom', path: ['mode'], message: 'a client certificate means mTLS: choose mtls' });
  });
export type GrpcTlsInput = z.infer<typeof GrpcTlsInput>;

/** gRPC metadata keys: lowercase header names; binary (`-bin`) and reserved (`grpc-`) keys are refused. */
export const GrpcMetadataKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]*$/, 'a metadata key is lowercase letters, digits, "_", "-" and "."')
  .refine((key) => !key.endsWith('-bin'), 'binary (-bin) metadata is not supported')
  .refine((key) => !key.startsWith('grpc-') && !['te', 'content-type', 'user-agent', 'host'].includes(key), 'is reserved by gRPC');

/**
 * What a source speaks: `tools.v1` — the `tools.v1.ToolServer` contract (ListTools/ExecuteTool;
 * main/grpc/proto/tools/v1/tool_server.proto);
 * `reflection` — any service, its unary and server-streaming methods found through server reflection.
 */
export const GrpcProtocol = z.enum(['tools.v1', 'reflection']);
export type GrpcProtocol = z.infer<typeof GrpcProtocol>;

/** Where to dial and how; metadata values are secrets (e.g. `authorization`), never written to a file. */
export const GrpcTarget = z.object({
  address: GrpcAddress,
  tls: GrpcTlsInput.default({ mode: 'plaintext' }),
  metadata: z.record(GrpcMetadataKey, z.string()).default({}),
});
export type GrpcTarget = z.infer<typeof GrpcTarget>;
export type GrpcTargetInput = z.input<typeof GrpcTarget>;

export const GrpcSourceInput = GrpcTarget.extend({
  name: GrpcSourceName,
  protocol: GrpcProtocol.default('tools.v1'),
  /** Save even when the server cannot be reached now (its tools are listed when it answers). */
  skipCheck: z.boolean().optional(),
});
export type GrpcSourceInput = z.input<typeof GrpcSourceInput>;

/** One tool of a tools.v1 server as ListTools gave it, and what Tooldeck made of it. */
export const GrpcToolView = z.object({
  name: z.string(),
  description: z.string(),
  version: z.string(),
  compatibleVersions: z.array(z.string()),
  /** The version calls carry: the pinned one, else the tool's own. */
  callVersion: z.string(),
  pinnedVersion: z.string().optional(),
  /** `grpc:<source>.<tool>`; absent for an unusable tool. */
  registryName: z.string().optional(),
  /** Why the tool is not in the registry (e.g. its schema is not valid JSON). */
  unusable: z.string().optional(),
});
export type GrpcToolView = z.infer<typeof GrpcToolView>;

export const GrpcMethodView = z.object({
  /** `package.Service/Method`: the registry tool name of a reflected method. */
  name: z.string(),
  service: z.string(),
  method: z.string(),
  requestType: z.string(),
  responseType: z.string(),
  clientStreaming: z.boolean(),
  serverStreaming: z.boolean(),
  /** JSON Schema of the request message in the proto3 JSON mapping (the form's schema). */
  requestSchema: z.record(z.string(), z.unknown()),
  responseSchema: z.record(z.string(), z.unknown()),
  registryName: z.string().optional(),
  /** Client- and bidi-streaming methods are listed but cannot be called from a form. */
  unusable: z.string().optional(),
});
export type GrpcMethodView = z.infer<typeof GrpcMethodView>;

export const GrpcServiceView = z.object({ name: z.string(), methods: z.array(GrpcMethodView) });
export type GrpcServiceView = z.infer<typeof GrpcServiceView>;

export const GrpcSourceState = z.enum(['pending', 'ready', 'error']);
export type GrpcSourceState = z.infer<typeof GrpcSourceState>;

export const GrpcSourceView = z.object({
  name: z.string(),
  address: z.string(),
  protocol: GrpcProtocol,
  tls: z.object({ mode: GrpcTlsMode, customCa: z.boolean(), clientCertificate: z.boolean(), serverName: z.string().optional() }),
  /** Keys only: the values are in the secret store. */
  metadataKeys: z.array(z.string()),
  /** `workspace` when an Orloj Tool resource (type grpc) declares it: edit the file, not here. */
  managedBy: z.literal('workspace').optional(),
  state: GrpcSourceState,
  /** Why the last listing failed, with the step (dns, tcp, tls, http2, grpc, reflection). */
  error: AppErrorShape.optional(),
  tools: z.array(GrpcToolView),
  services: z.array(GrpcServiceView),
  listedAt: z.number().optional(),
});
export type GrpcSourceView = z.infer<typeof GrpcSourceView>;

/** The steps of reaching a gRPC server, in order; a failure names the first one that failed. */
export const GrpcConnectStep = z.enum(['dns', 'tcp', 'tls', 'http2', 'grpc', 'reflection']);
export type GrpcConnectStep = z.infer<typeof GrpcConnectStep>;

/** The structuredContent of a reflected method's result: the response(s), the status and the metadata. */
export const GrpcCallResult = z.object({
  /** Unary: the response message as proto3 JSON. */
  response: z.unknown().optional(),
  /** Server streaming: every message received, in order. */
  responses: z.array(z.unknown()).optional(),
  status: z.object({ code: z.number().int(), name: z.string(), details: z.string() }),
  headers: z.record(z.string(), z.string()),
  trailers: z.record(z.string(), z.string()),
});
export type GrpcCallResult = z.infer<typeof GrpcCallResult>;
