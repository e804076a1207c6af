import { z } from 'zod';
import { CallerAgentName, CallerVia } from './caller';
import { AppErrorShape, ErrorCode } from './errors';
import { TaskStatus } from './tasks';

/** Where a callable entry comes from: `mcp:<server>`, `a2a:<agent>`, `http:<service>`, `grpc:<source>`, `bus:<agent>` (another RockBot MCP bridge on the bus). */
export const SourceKind = z.enum(['mcp', 'a2a', 'http', 'grpc', 'bus']);
export type SourceKind = z.infer<typeof SourceKind>;

export const ToolSource = z.object({ kind: SourceKind, name: z.string().min(1) });
export type ToolSource = z.infer<typeof ToolSource>;

export function sourceId(source: ToolSource): string {
  return `${source.kind}:${source.name}`;
}

export const InvocationStatus = z.enum(['ok', 'error', 'timeout', 'canceled', 'denied']);
export type InvocationStatus = z.infer<typeof InvocationStatus>;

/**
 * One finished call, as the pipeline records it and the store persists it. Arguments are already
 * size-capped and secret-masked when a record is made; nothing downstream needs to redo that.
 */
/** A replica's name as records carry it: what Kubernetes allows in a pod name or a host name allows, and no control characters. */
export const ReplicaName = z.string().min(1).max(253).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'A replica name is letters, digits, dots, dashes and underscores');
export type ReplicaName = z.infer<typeof ReplicaName>;

export const InvocationRecord = z.object({
  id: z.string(),
  /** Epoch milliseconds. */
  startedAt: z.number(),
  sourceKind: SourceKind,
  sourceName: z.string(),
  /** The tool's own name at its source (e.g. `echo`), not the namespaced registry name. */
  tool: z.string(),
  argumentsJson: z.string(),
  status: InvocationStatus,
  errorCode: ErrorCode.optional(),
  errorMessage: z.string().optional(),
  latencyMs: z.number(),
  requestBytes: z.number().int(),
  responseBytes: z.number().int(),
  resultPreview: z.string(),
  truncated: z.boolean(),
  /** Set when this call replays an earlier one from history. */
  replayOf: z.string().optional(),
  /** Set when the call ran inside a collection run. */
  runId: z.string().optional(),
  /** isError results are calls that reached the tool and failed there. */
  isError: z.boolean().optional(),
  attempts: z.number().int().optional(),
  /** A task-augmented call: the task it ran as (MCP tasks)… */
  taskId: z.string().optional(),
  /** …and its last known status: terminal once the result came, or updated later for a detached call. */
  taskStatus: TaskStatus.optional(),
  /** The W3C trace id of the call (the traceparent its requests carried; its spans when exported). */
  traceId: z.string().regex(/^[0-9a-f]{32}$/).optional(),
  /** The way in the call came through; absent on records made before callers were recorded. */
  via: CallerVia.optional(),
  /** The agent that made the call; absent when the operator did. */
  agent: CallerAgentName.optional(),
  /** The Tooldeck process that recorded the call (`--replica-name`: the pod's name in a cluster, else the host's); absent on older records. */
  replica: ReplicaName.optional(),
});
export type InvocationRecord = z.infer<typeof InvocationRecord>;

export const InvocationFailure = AppErrorShape;
export type InvocationFailure = z.infer<typeof InvocationFailure>;
