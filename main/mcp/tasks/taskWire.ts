import { z } from 'zod';
import { McpTask } from '../../../shared/tasks';

/**
 * The task vocabulary on the wire (MCP 2025-11-25, SEP-1686). The SDK keeps these methods out of
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
