import { z } from 'zod';
import { AppErrorShape } from './errors';

/**
 * MCP tasks (SEP-1686, 2025-11-25): a request the server runs in the background. `working` and
 * `input_required` are live; the other three are terminal.
 */
export const TaskStatus = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
export type TaskStatus = z.infer<typeof TaskStatus>;

/**
 * The 2026 form of tasks (SEP-2663, revision 2026-07-28): an extension both sides declare under
 * `capabilities.extensions`; the server, not the caller, decides which calls become tasks.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether a server's capabilities declare the tasks extension. */
export function declaresTasksExtension(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  return !!extensions && typeof extensions === 'object' && TASKS_EXTENSION in extensions;
}

export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];
export const isTerminalTaskStatus = (status: TaskStatus): boolean => TERMINAL_TASK_STATUSES.includes(status);

/** A task as the server reports it (tasks/get, tasks/list, notifications/tasks/status). */
export const McpTask = z
  .object({
    taskId: z.string().min(1),
    status: TaskStatus,
    statusMessage: z.string().optional(),
    /** ISO 8601. */
    createdAt: z.string().optional(),
    lastUpdatedAt: z.string().optional(),
    /** How long (ms) the server keeps the task after creation; null: no limit. */
    ttl: z.number().nullable().optional(),
    /** The polling interval (ms) the server suggests. */
    pollInterval: z.number().optional(),
  })
  .loose();
export type McpTask = z.infer<typeof McpTask>;

/** How Tooldeck learned of a status: the create response, a tasks/get poll, a notification, the result, a cancel. */
export const TaskEventSource = z.enum(['created', 'poll', 'notification', 'result', 'cancel']);
export type TaskEventSource = z.infer<typeof TaskEventSource>;

/** One step of a task's timeline, as the invoke result and the Tasks tab show it. */
export const TaskEvent = z.object({
  /** Epoch ms when Tooldeck saw it. */
  at: z.number(),
  status: TaskStatus,
  statusMessage: z.string().optional(),
  via: TaskEventSource,
});
export type TaskEvent = z.infer<typeof TaskEvent>;

/** The task behind one task-augmented call: its id, where it ended (or stands, when detached) and its timeline. */
export const InvocationTask = z.object({
  taskId: z.string(),
  status: TaskStatus,
  statusMessage: z.string().optional(),
  /** False for a detached call: the result is fetched later (Tasks tab, `tooldeck mcp task result`). */
  awaited: z.boolean(),
  events: z.array(TaskEvent),
});
export type InvocationTask = z.infer<typeof InvocationTask>;

/**
 * What a caller asks of a tool that supports tasks (`execution.taskSupport`): run it as a task and
 * wait for the result, or only start it (`detach`). Required-task tools always run as tasks.
 */
export const InvokeTaskOptions = z.object({
  mode: z.enum(['wait', 'detach']).default('wait'),
  /** Asked-for retention on the server (ms); the server decides. */
  ttlMs: z.number().int().positive().max(7 * 24 * 3_600_000).optional(),
});
export type InvokeTaskOptions = z.infer<typeof InvokeTaskOptions>;

/**
 * A task Tooldeck started (or ran for a server), remembered per server across reloads and
 * restarts so its result can be fetched while the server keeps it.
 */
export const KnownTask = z.object({
  server: z.string(),
  taskId: z.string(),
  /** `call`: a tools/call Tooldeck made; `executor`: a request the server asked Tooldeck to run as a task. */
  origin: z.enum(['call', 'executor']),
  /** What ran: the tool name, or the request method for executor tasks. */
  subject: z.string(),
  createdAt: z.number(),
  status: TaskStatus,
  statusMessage: z.string().optional(),
  updatedAt: z.number(),
  ttlMs: z.number().nullable().optional(),
  /** The server answered that it no longer has the task (expired, or kept per session and the session ended). */
  gone: z.boolean().optional(),
});
export type KnownTask = z.infer<typeof KnownTask>;

/** A row of a server's Tasks tab: what Tooldeck remembers merged with what the server lists now. */
export const ServerTaskView = KnownTask.extend({
  /** The server listed it just now (tasks/list), or answered tasks/get for it. */
  onServer: z.boolean(),
  /** Remembered by Tooldeck (started here); false for tasks only the server listed. */
  known: z.boolean(),
});
export type ServerTaskView = z.infer<typeof ServerTaskView>;

export const ServerTaskList = z.object({
  server: z.string(),
  tasks: z.array(ServerTaskView),
  /** Whether the server offers tasks/list (capabilities.tasks.list); without it only remembered tasks show. */
  canList: z.boolean(),
  canCancel: z.boolean(),
  /** Why the list is partial, when it is (the server is down, tasks/list failed). */
  problem: z.string().optional(),
});
export type ServerTaskList = z.infer<typeof ServerTaskList>;

/** tasks/result as Tooldeck shows it: the underlying result (a tools/call result), or why there is none. */
export const TaskResultView = z.object({
  task: McpTask,
  result: z.unknown().optional(),
  error: AppErrorShape.optional(),
});
export type TaskResultView = z.infer<typeof TaskResultView>;
