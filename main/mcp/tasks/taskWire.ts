import { z } from 'zod';
import { McpTask, TASKS_EXTENSION } from '../../../shared/tasks';

export { TASKS_EXTENSION };

/**
 * The task vocabulary on the wire, in its two forms: MCP 2025-11-25's core tasks (SEP-1686,
 * `capabilities.tasks`, the client asks for a task with `params.task`) and protocol revision
 * 2026-07-28's tasks extension (SEP-2663, `capabilities.extensions["io.modelcontextprotocol/tasks"]`,
 * the server decides, results inlined in tasks/get, input through tasks/update).
 *
 * SEP-1686: The SDK keeps these methods out of
 * its typed surface ("no SDK runtime"), so requests go through `client.request` with these schemas.
 */
export const CreateTaskResultWire = z.object({ task: McpTask }).loose();
export const ListTasksResultWire = z.object({ tasks: z.array(McpTask), nextCursor: z.string().optional() }).loose();
/** tasks/result answers with the underlying request's result (a tools/call result), whatever its shape. */
export const TaskPayloadWire = z.record(z.string(), z.unknown());

/** `_meta` key that ties a message to a task (requests delivered through tasks/result, results). */
export const RELATED_TASK_KEY = 'io.modelcontextprotocol/related-task';

/** The task id a server request carries in `_meta`, if it belongs to one. */
export function relatedTaskId(params: unknown): string | undefined {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const related = meta?.[RELATED_TASK_KEY] as { taskId?: unknown } | undefined;
  return typeof related?.taskId === 'string' ? related.taskId : undefined;
}

/** A server request asks to run as a task when its params carry `task` (with an optional ttl). */
export function taskAugmentation(params: unknown): { ttl?: number } | undefined {
  const task = (params as { task?: unknown } | undefined)?.task;
  if (!task || typeof task !== 'object') return undefined;
  const ttl = (task as { ttl?: unknown }).ttl;
  return typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? { ttl } : {};
}

/**
 * Where `adaptCreatedTasks` puts a SEP-2663 CreateTaskResult inside the tools/call result it hands
 * the SDK (whose codec knows no `resultType: "task"`). Tooldeck's own key: never sent, never shown.
 */
export const CREATED_TASK_META = 'tooldeck/created-task';

/** The task a tools/call result stands for, when `adaptCreatedTasks` found one in its place. */
export function createdTaskIn(result: { _meta?: Record<string, unknown> } | undefined): CreatedTask2026 | undefined {
  const created = result?._meta?.[CREATED_TASK_META];
  // Nearly every result has none; a failed parse (an error with its issues) per call is not free.
  if (created === undefined) return undefined;
  const parsed = CreatedTask2026.safeParse(created);
  return parsed.success ? parsed.data : undefined;
}

/** SEP-2663's Task: the SEP-1686 fields with the units in the names. */
const TaskFields2026 = {
  taskId: z.string().min(1),
  status: McpTask.shape.status,
  statusMessage: z.string().optional(),
  createdAt: z.string().optional(),
  lastUpdatedAt: z.string().optional(),
  ttlMs: z.number().nullable().optional(),
  pollIntervalMs: z.number().optional(),
};
export const CreatedTask2026 = z.object(TaskFields2026).loose();
export type CreatedTask2026 = z.infer<typeof CreatedTask2026>;

/** One request a task waits on (SEP-2322's InputRequest): elicitation/create, sampling/createMessage, roots/list. */
export const InputRequestWire = z.object({ method: z.string(), params: z.unknown().optional() }).loose();
export type InputRequestWire = z.infer<typeof InputRequestWire>;

/** tasks/get's DetailedTask (SEP-2663): the result or the error inlined once the task has ended. */
export const DetailedTaskWire = z
  .object({
    ...TaskFields2026,
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().optional(), message: z.string(), data: z.unknown().optional() }).loose().optional(),
    inputRequests: z.record(z.string(), InputRequestWire).optional(),
  })
  .loose();
export type DetailedTaskWire = z.infer<typeof DetailedTaskWire>;

/** tasks/update and tasks/cancel answer with an empty acknowledgement. */
export const AckWire = z.object({}).loose();

/** A SEP-2663 task in the shape the rest of Tooldeck knows (SEP-1686's field names). */
export function taskFrom2026(task: CreatedTask2026): McpTask {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    ...(task.createdAt ? { createdAt: task.createdAt } : {}),
    ...(task.lastUpdatedAt ? { lastUpdatedAt: task.lastUpdatedAt } : {}),
    ...(task.ttlMs !== undefined ? { ttl: task.ttlMs } : {}),
    ...(task.pollIntervalMs !== undefined ? { pollInterval: task.pollIntervalMs } : {}),
  };
}
