import type { Transport } from '@modelcontextprotocol/client';
import { CREATED_TASK_META } from './taskWire';

/**
 * Lets a SEP-2663 CreateTaskResult through the SDK. A server of the tasks extension answers a
 * tools/call it turned into a task with `resultType: "task"` and the task's fields at the top
 * level; the SDK's result codec (2.4) knows only `complete` and `input_required` and would reject
 * the answer. This rewrites such a response, before the SDK sees it, into a complete tools/call
 * result that carries the task under `_meta[CREATED_TASK_META]`, where McpConnection.callTool picks
 * it up and follows the task. The stand-in is marked `isError` with no content: the SDK then skips
 * output-schema checks (a task has no structured content yet), and anything that ever read it as a
 * result would read a failure, never an empty success. Everything else passes untouched; the
 * transcript keeps what the server sent.
 */
export function adaptCreatedTasks(transport: Transport): void {
  const own = Object.getOwnPropertyDescriptor(transport, 'onmessage');
  const wrap = (next: Transport['onmessage']): Transport['onmessage'] => next && ((message, extra) => next(rewrite(message), extra));
  if (own?.set) {
    // Another wrapper (the transcript) already owns the property: hand it the adapted handler.
    Object.defineProperty(transport, 'onmessage', { configurable: true, get: own.get, set: (next: Transport['onmessage']) => own.set!.call(transport, wrap(next)) });
    return;
  }
  let handler = wrap(transport.onmessage);
  Object.defineProperty(transport, 'onmessage', { configurable: true, get: () => handler, set: (next: Transport['onmessage']) => (handler = wrap(next)) });
}

function rewrite<M>(message: M): M {
  const result = (message as { result?: Record<string, unknown> }).result;
  if (!result || typeof result !== 'object' || result.resultType !== 'task' || typeof result.taskId !== 'string') return message;
  const { resultType: _type, _meta, content: _content, ...task } = result;
  return {
    ...message,
    result: { resultType: 'complete', content: [], isError: true, _meta: { ...(_meta as Record<string, unknown> | undefined), [CREATED_TASK_META]: task } },
  };
}
