import { Role, TaskState, type Artifact, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import {
  A2aTaskState,
  isFinalA2aState,
  type A2aArtifact,
  type A2aEvent,
  type A2aMessageView,
  type A2aOutgoingMessage,
  type A2aPart,
  type A2aSendResult,
  type A2aTaskView,
} from '../../shared/a2a';

const BY_ENUM: Partial<Record<TaskState, A2aTaskState>> = {
  [TaskState.TASK_STATE_SUBMITTED]: 'SUBMITTED',
  [TaskState.TASK_STATE_WORKING]: 'WORKING',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'INPUT_REQUIRED',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'AUTH_REQUIRED',
  [TaskState.TASK_STATE_COMPLETED]: 'COMPLETED',
  [TaskState.TASK_STATE_FAILED]: 'FAILED',
  [TaskState.TASK_STATE_CANCELED]: 'CANCELED',
  [TaskState.TASK_STATE_REJECTED]: 'REJECTED',
};

/**
 * One state vocabulary for every peer: the SDK's enum, 1.0 wire names (`TASK_STATE_INPUT_REQUIRED`),
 * 0.3 names (`input-required`), and the British `cancelled` some agents send. Unknown → undefined.
 */
export function normalizeTaskState(value: unknown): A2aTaskState | undefined {
  if (typeof value === 'number') return BY_ENUM[value as TaskState];
  if (typeof value !== 'string') return undefined;
  const name = value
    .trim()
    .toUpperCase()
    .replace(/^TASK_STATE_/, '')
    .replace(/-/g, '_')
    .replace(/^CANCELLED$/, 'CANCELED');
  const parsed = A2aTaskState.safeParse(name);
  return parsed.success ? parsed.data : undefined;
}

export function partView(part: Part): A2aPart {
  const mediaType = part.mediaType || undefined;
  switch (part.content?.$case) {
    case 'text':
      return { kind: 'text', text: part.content.value, ...(mediaType ? { mediaType } : {}) };
    case 'data':
      return { kind: 'data', data: part.content.value, ...(mediaType ? { mediaType } : {}) };
    case 'url':
      return { kind: 'file', url: part.content.value, ...(part.filename ? { filename: part.filename } : {}), ...(mediaType ? { mediaType } : {}) };
    case 'raw':
      return {
        kind: 'file',
        bytesBase64: Buffer.from(part.content.value).toString('base64'),
        ...(part.filename ? { filename: part.filename } : {}),
        ...(mediaType ? { mediaType } : {}),
      };
    default:
      return { kind: 'text', text: '' };
  }
}

export function textOf(parts: A2aPart[]): string {
  return parts
    .filter((p): p is Extract<A2aPart, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('\n');
}

export function messageView(message: Message): A2aMessageView {
  const parts = (message.parts ?? []).map(partView);
  return {
    messageId: message.messageId ?? '',
    role: message.role === Role.ROLE_USER ? 'user' : 'agent',
    parts,
    text: textOf(parts),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
  };
}

export function artifactView(artifact: Artifact): A2aArtifact {
  return {
    artifactId: artifact.artifactId ?? '',
    ...(artifact.name ? { name: artifact.name } : {}),
    ...(artifact.description ? { description: artifact.description } : {}),
    parts: (artifact.parts ?? []).map(partView),
  };
}

export function taskView(task: Task): A2aTaskView {
  const statusText = task.status?.message ? textOf(task.status.message.parts.map(partView)) : '';
  const state = normalizeTaskState(task.status?.state);
  return {
    id: task.id,
    contextId: task.contextId,
    ...(state ? { state } : {}),
    ...(statusText ? { statusText } : {}),
    ...(task.status?.timestamp ? { updatedAt: task.status.timestamp } : {}),
    artifacts: (task.artifacts ?? []).map(artifactView),
    history: (task.history ?? []).map(messageView),
  };
}

/** The reply to show: text artifacts when there are any, else the status text. */
export function replyText(task: A2aTaskView): string {
  const artifactText = task.artifacts.map((a) => textOf(a.parts)).filter(Boolean).join('\n');
  return artifactText || task.statusText || '';
}

export function taskResult(task: A2aTaskView): A2aSendResult {
  return {
    kind: 'task',
    taskId: task.id,
    contextId: task.contextId,
    ...(task.state ? { state: task.state } : {}),
    text: replyText(task),
    artifacts: task.artifacts,
    task,
  };
}

export function sendResultOf(result: Message | Task): A2aSendResult {
  if (!('messageId' in result)) return taskResult(taskView(result));
  const message = messageView(result);
  return {
    kind: 'message',
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    text: message.text,
    artifacts: [],
    message,
  };
}

export function eventOf(response: StreamResponse, at = Date.now()): A2aEvent | undefined {
  const payload = response.payload;
  switch (payload?.$case) {
    case 'task': {
      const task = taskView(payload.value);
      return {
        kind: 'task',
        taskId: task.id,
        contextId: task.contextId,
        ...(task.state ? { state: task.state } : {}),
        ...(task.statusText ? { text: task.statusText } : {}),
        final: isFinalA2aState(task.state),
        at,
      };
    }
    case 'statusUpdate': {
      const update = payload.value;
      const state = normalizeTaskState(update.status?.state);
      const text = update.status?.message ? textOf(update.status.message.parts.map(partView)) : '';
      return {
        kind: 'status',
        taskId: update.taskId,
        contextId: update.contextId,
        ...(state ? { state } : {}),
        ...(text ? { text } : {}),
        final: isFinalA2aState(state),
        at,
      };
    }
    case 'artifactUpdate': {
      const update = payload.value;
      return {
        kind: 'artifact',
        taskId: update.taskId,
        contextId: update.contextId,
        ...(update.artifact ? { artifact: artifactView(update.artifact) } : {}),
        append: update.append,
        lastChunk: update.lastChunk,
        final: false,
        at,
      };
    }
    case 'message': {
      const message = messageView(payload.value);
      return {
        kind: 'message',
        ...(message.taskId ? { taskId: message.taskId } : {}),
        ...(message.contextId ? { contextId: message.contextId } : {}),
        text: message.text,
        // A bare message reply ends the exchange; one inside a task is just chatter.
        final: !message.taskId,
        at,
      };
    }
    default:
      return undefined;
  }
}

function toSdkPart(part: A2aPart): Part {
  switch (part.kind) {
    case 'text':
      return { content: { $case: 'text', value: part.text }, metadata: undefined, filename: '', mediaType: part.mediaType ?? 'text/plain' };
    case 'data':
      return { content: { $case: 'data', value: part.data }, metadata: undefined, filename: '', mediaType: part.mediaType ?? 'application/json' };
    case 'file':
      return part.url
        ? { content: { $case: 'url', value: part.url }, metadata: undefined, filename: part.filename ?? '', mediaType: part.mediaType ?? '' }
        : {
            content: { $case: 'raw', value: Buffer.from(part.bytesBase64 ?? '', 'base64') },
            metadata: undefined,
            filename: part.filename ?? '',
            mediaType: part.mediaType ?? 'application/octet-stream',
          };
  }
}

export function outgoingMessage(message: A2aOutgoingMessage, ids: { contextId?: string; taskId?: string }, extraMetadata?: Record<string, unknown>): Message {
  const parts = typeof message === 'string' ? [toSdkPart({ kind: 'text', text: message })] : message.parts.map(toSdkPart);
  const metadata = typeof message === 'string' ? extraMetadata : { ...message.metadata, ...extraMetadata };
  return {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: metadata && Object.keys(metadata).length ? metadata : undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
