import {
  A2A_INTERRUPTED_STATES,
  isFinalA2aState,
  type A2aArtifact,
  type A2aEvent,
  type A2aPart,
  type A2aRole,
  type A2aSendResult,
  type A2aTaskState,
  type A2aTaskView,
  type A2aThread,
  type A2aTimelineEntry,
} from '../../../../shared/a2a';

export interface ChatMessage {
  id: string;
  role: A2aRole;
  text: string;
  at: number;
  taskId?: string;
  /** For the agent's status messages: the state the task was in when it said this. */
  state?: A2aTaskState;
  /** Non-text parts of a message, when the answer carried them. */
  parts?: A2aPart[];
}

export interface TaskRecord {
  taskId: string;
  state?: A2aTaskState;
  timeline: A2aTimelineEntry[];
  artifacts: A2aArtifact[];
}

/**
 * One conversation (one A2A contextId) as the renderer shows it. It folds stream events and task
 * snapshots the same way the backend's thread book does, so a live conversation and one reopened from
 * `a2a.threads` look alike.
 */
export interface Conversation {
  contextId?: string;
  messages: ChatMessage[];
  tasks: TaskRecord[];
}

export function emptyConversation(): Conversation {
  return { messages: [], tasks: [] };
}

export function fromThread(thread: A2aThread): Conversation {
  const stateOf = (m: A2aThread['messages'][number]) =>
    m.role === 'agent' ? thread.tasks.find((t) => t.taskId === m.taskId)?.timeline.find((e) => e.at === m.at && e.text === m.text)?.state : undefined;
  return {
    contextId: thread.contextId,
    messages: thread.messages.map((m) => {
      const state = stateOf(m);
      return { id: m.messageId, role: m.role, text: m.text, at: m.at, ...(m.taskId ? { taskId: m.taskId } : {}), ...(state ? { state } : {}) };
    }),
    tasks: thread.tasks.map((t) => ({ taskId: t.taskId, ...(t.state ? { state: t.state } : {}), timeline: t.timeline, artifacts: t.artifacts })),
  };
}

export function withMessage(conversation: Conversation, message: ChatMessage): Conversation {
  if (conversation.messages.some((m) => m.id === message.id)) return conversation;
  return { ...conversation, messages: [...conversation.messages, message] };
}

function mergeArtifact(list: A2aArtifact[], artifact: A2aArtifact, append: boolean): A2aArtifact[] {
  const index = list.findIndex((a) => a.artifactId === artifact.artifactId);
  if (index === -1) return [...list, artifact];
  const existing = list[index]!;
  const merged = append ? { ...existing, parts: [...existing.parts, ...artifact.parts] } : artifact;
  return list.map((a, i) => (i === index ? merged : a));
}

function transition(task: TaskRecord, state: A2aTaskState, at: number, text: string | undefined): TaskRecord {
  const last = task.timeline.at(-1);
  if (last && last.state === state && last.text === text) return { ...task, state };
  return { ...task, state, timeline: [...task.timeline, { state, at, ...(text ? { text } : {}) }] };
}

function updateTask(conversation: Conversation, taskId: string, update: (task: TaskRecord) => TaskRecord): Conversation {
  const exists = conversation.tasks.some((t) => t.taskId === taskId);
  const tasks = exists ? conversation.tasks : [...conversation.tasks, { taskId, timeline: [], artifacts: [] }];
  return { ...conversation, tasks: tasks.map((t) => (t.taskId === taskId ? update(t) : t)) };
}

/** The message that opened the current turn learns the task it started (or continued). */
function linkLastUserMessage(conversation: Conversation, taskId: string): Conversation {
  const index = conversation.messages.findLastIndex((m) => m.role === 'user');
  const message = conversation.messages[index];
  if (!message || message.taskId) return conversation;
  return { ...conversation, messages: conversation.messages.map((m, i) => (i === index ? { ...m, taskId } : m)) };
}

/** Folds one streamed update into the conversation. */
export function withEvent(conversation: Conversation, event: A2aEvent): Conversation {
  let next: Conversation = conversation.contextId || !event.contextId ? conversation : { ...conversation, contextId: event.contextId };
  if (event.kind === 'message') {
    if (!event.text) return next;
    return withMessage(next, {
      id: `message-${event.at}-${next.messages.length}`,
      role: 'agent',
      text: event.text,
      at: event.at,
      ...(event.taskId ? { taskId: event.taskId } : {}),
    });
  }
  const taskId = event.taskId;
  if (!taskId) return next;
  next = linkLastUserMessage(next, taskId);
  next = updateTask(next, taskId, (task) => {
    const withArtifact = event.artifact ? { ...task, artifacts: mergeArtifact(task.artifacts, event.artifact, event.append === true) } : task;
    return event.state ? transition(withArtifact, event.state, event.at, event.text) : withArtifact;
  });
  // The question of an INPUT_REQUIRED task, or the last word of a finished one, belongs in the chat.
  if (event.text && isFinalA2aState(event.state)) {
    next = withMessage(next, { id: `status-${taskId}-${event.state}-${event.at}`, role: 'agent', text: event.text, at: event.at, taskId, state: event.state! });
  }
  return next;
}

/** Folds a task snapshot (a blocking answer, GetTask, CancelTask) into the conversation. */
export function withTaskView(conversation: Conversation, view: A2aTaskView, at: number): Conversation {
  let next: Conversation = conversation.contextId ? conversation : { ...conversation, contextId: view.contextId };
  next = linkLastUserMessage(next, view.id);
  next = updateTask(next, view.id, (task) => {
    const artifacts = view.artifacts.reduce((list, artifact) => mergeArtifact(list, artifact, false), task.artifacts);
    const withArtifacts = { ...task, artifacts };
    return view.state ? transition(withArtifacts, view.state, at, view.statusText) : withArtifacts;
  });
  if (view.statusText && isFinalA2aState(view.state)) {
    next = withMessage(next, { id: `status-${view.id}-${view.state}`, role: 'agent', text: view.statusText, at, taskId: view.id, state: view.state! });
  }
  return next;
}

/** Folds the answer of a blocking send: a task snapshot, or a direct message. */
export function withSendResult(conversation: Conversation, result: A2aSendResult, at: number): Conversation {
  if (result.task) return withTaskView(conversation, result.task, at);
  const next = conversation.contextId || !result.contextId ? conversation : { ...conversation, contextId: result.contextId };
  const message = result.message;
  const extraParts = message?.parts.filter((p) => p.kind !== 'text') ?? [];
  return withMessage(next, {
    id: message?.messageId || `message-${at}`,
    role: 'agent',
    text: message?.text ?? result.text,
    at,
    ...(extraParts.length ? { parts: extraParts } : {}),
  });
}

/** The task the agent is waiting on (INPUT_REQUIRED / AUTH_REQUIRED): the next message answers it. */
export function waitingTask(conversation: Conversation): TaskRecord | undefined {
  return conversation.tasks.findLast((t) => t.state !== undefined && A2A_INTERRUPTED_STATES.includes(t.state));
}

/** The task that moved last. */
export function latestTask(conversation: Conversation): TaskRecord | undefined {
  let latest: TaskRecord | undefined;
  for (const task of conversation.tasks) if (!latest || (task.timeline.at(-1)?.at ?? 0) >= (latest.timeline.at(-1)?.at ?? 0)) latest = task;
  return latest;
}
