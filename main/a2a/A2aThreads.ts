import { randomUUID } from 'node:crypto';
import { A2A_INTERRUPTED_STATES, isFinalA2aState, type A2aArtifact, type A2aEvent, type A2aTaskView, type A2aThread } from '../../shared/a2a';

type ThreadTask = A2aThread['tasks'][number];

const MAX_THREADS = 200;
const MAX_MESSAGES = 500;
const MAX_TIMELINE = 200;

/**
 * Conversations per contextId, in memory: what was said and how each task moved through its states.
 * Bounded: the least recently used threads go first.
 */
export class A2aThreads {
  private readonly byContext = new Map<string, A2aThread>();

  list(agent?: string): A2aThread[] {
    return [...this.byContext.values()].filter((t) => agent === undefined || t.agent === agent).sort((a, b) => b.updatedAt - a.updatedAt);
  }

  get(contextId: string): A2aThread | undefined {
    return this.byContext.get(contextId);
  }

  /** The task in this context waiting for the caller (INPUT_REQUIRED / AUTH_REQUIRED), if any. */
  waitingTask(contextId: string): string | undefined {
    const thread = this.byContext.get(contextId);
    return thread?.tasks.findLast((t) => t.state !== undefined && A2A_INTERRUPTED_STATES.includes(t.state))?.taskId;
  }

  contextOfTask(taskId: string): string | undefined {
    for (const thread of this.byContext.values()) if (thread.tasks.some((t) => t.taskId === taskId)) return thread.contextId;
    return undefined;
  }

  forget(agent: string) {
    for (const [contextId, thread] of this.byContext) if (thread.agent === agent) this.byContext.delete(contextId);
  }

  message(agent: string, contextId: string, entry: A2aThread['messages'][number]) {
    const thread = this.thread(agent, contextId);
    if (thread.messages.some((m) => m.messageId === entry.messageId)) return;
    thread.messages.push(entry);
    if (thread.messages.length > MAX_MESSAGES) thread.messages.splice(0, thread.messages.length - MAX_MESSAGES);
    thread.updatedAt = entry.at;
  }

  event(agent: string, event: A2aEvent) {
    if (!event.contextId) return;
    if (event.kind === 'message') {
      if (event.text) this.message(agent, event.contextId, { role: 'agent', text: event.text, at: event.at, taskId: event.taskId, messageId: randomUUID() });
      return;
    }
    if (!event.taskId) return;
    const task = this.task(agent, event.contextId, event.taskId);
    if (event.kind === 'artifact' && event.artifact) mergeArtifact(task.artifacts, event.artifact, event.append === true);
    if (event.state) this.transition(task, event.state, event.at, event.text);
    // The question of an INPUT_REQUIRED task, or the last word of a finished one, belongs in the conversation.
    if (event.text && isFinalA2aState(event.state)) {
      this.message(agent, event.contextId, { role: 'agent', text: event.text, at: event.at, taskId: event.taskId, messageId: `status-${event.taskId}-${event.at}` });
    }
    this.touch(event.contextId, event.at);
  }

  /** Folds a task snapshot (from a blocking send, GetTask or CancelTask) into its thread. */
  snapshot(agent: string, view: A2aTaskView, at = Date.now()) {
    const task = this.task(agent, view.contextId, view.id);
    for (const artifact of view.artifacts) mergeArtifact(task.artifacts, artifact, false);
    if (view.state) this.transition(task, view.state, at, view.statusText);
    if (view.statusText && isFinalA2aState(view.state)) {
      this.message(agent, view.contextId, { role: 'agent', text: view.statusText, at, taskId: view.id, messageId: `status-${view.id}-${view.state}` });
    }
    this.touch(view.contextId, at);
  }

  private transition(task: ThreadTask, state: NonNullable<ThreadTask['state']>, at: number, text?: string) {
    const last = task.timeline.at(-1);
    if (last && last.state === state && last.text === text) return;
    task.timeline.push({ state, at, ...(text ? { text } : {}) });
    if (task.timeline.length > MAX_TIMELINE) task.timeline.splice(0, task.timeline.length - MAX_TIMELINE);
    task.state = state;
  }

  private task(agent: string, contextId: string, taskId: string): ThreadTask {
    const thread = this.thread(agent, contextId);
    let task = thread.tasks.find((t) => t.taskId === taskId);
    if (!task) thread.tasks.push((task = { taskId, timeline: [], artifacts: [] }));
    return task;
  }

  /** The map's order is the eviction order: a touched thread moves to the end, the first one goes. */
  private thread(agent: string, contextId: string): A2aThread {
    let thread = this.byContext.get(contextId);
    if (thread) {
      this.byContext.delete(contextId);
      this.byContext.set(contextId, thread);
      return thread;
    }
    thread = { agent, contextId, messages: [], tasks: [], updatedAt: Date.now() };
    this.byContext.set(contextId, thread);
    if (this.byContext.size > MAX_THREADS) this.byContext.delete(this.byContext.keys().next().value!);
    return thread;
  }

  private touch(contextId: string, at: number) {
    const thread = this.byContext.get(contextId);
    if (thread && at > thread.updatedAt) thread.updatedAt = at;
  }
}

function mergeArtifact(list: A2aArtifact[], artifact: A2aArtifact, append: boolean) {
  const index = list.findIndex((a) => a.artifactId === artifact.artifactId);
  if (index === -1) list.push(structuredClone(artifact));
  else if (append) list[index]!.parts.push(...structuredClone(artifact.parts));
  else list[index] = structuredClone(artifact);
}
