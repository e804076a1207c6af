import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { isTerminalA2aState, type A2aEvent, type A2aSendResult, type A2aTaskView, type A2aThread } from '../../../../shared/a2a';
import type { AppErrorShape } from '../../../../shared/errors';
import { useTRPC, useTRPCClient } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';
import { shortId } from './display';
import { emptyConversation, fromThread, waitingTask, withEvent, withMessage, withSendResult, withTaskView, type Conversation } from './conversationModel';

export type TurnMode = 'stream' | 'blocking' | 'resubscribe';

export type TurnStatus =
  | { phase: 'idle' }
  | { phase: 'running'; mode: TurnMode; taskId?: string; startedAt: number }
  | { phase: 'canceling'; taskId?: string }
  /** The stream ended before the task reached a final state; resubscribing can recover it. */
  | { phase: 'dropped'; taskId: string; message: string }
  | { phase: 'failed'; error: AppErrorShape }
  | { phase: 'canceled'; message: string };

interface RunningTurn {
  stop(): void;
  /** Set once the turn is over, so late callbacks of a stopped stream change nothing. */
  settled: boolean;
  taskId?: string;
}

/** The wire types mark `data: unknown` optional; the events are A2aEvents all the same. */
interface StreamHandlers {
  onData: (data: unknown) => void;
  onError: (error: unknown) => void;
  onComplete: () => void;
  onConnectionStateChange: (state: { state: 'idle' | 'connecting' | 'pending'; error: unknown }) => void;
}

let messageSeq = 0;

/** Stops the running turn without reporting how it ended. */
function abandon(running: { current: RunningTurn | null }) {
  const current = running.current;
  running.current = null;
  if (!current) return;
  current.settled = true;
  current.stop();
}

/**
 * One conversation with one agent: sending (streamed or blocking), following a task's states,
 * continuing a task that waits for input, canceling, and resubscribing after a dropped stream.
 * Unsubscribing from `a2a.stream` cancels the task at the agent, so leaving the view cancels a running turn.
 */
export function useConversation(agent: string) {
  const client = useTRPCClient();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [conversation, setConversation] = useState<Conversation>(emptyConversation);
  const [turn, setTurn] = useState<TurnStatus>({ phase: 'idle' });
  const running = useRef<RunningTurn | null>(null);
  const conversationRef = useRef(conversation);
  useEffect(() => {
    conversationRef.current = conversation;
  }, [conversation]);

  const refreshThreads = useCallback(() => void queryClient.invalidateQueries({ queryKey: trpc.a2a.threads.queryKey({ agent }) }), [queryClient, trpc, agent]);

  const settle = useCallback(
    (current: RunningTurn, next: TurnStatus) => {
      if (current.settled) return;
      current.settled = true;
      if (running.current === current) running.current = null;
      setTurn(next);
      refreshThreads();
    },
    [refreshThreads],
  );

  /** Follows a subscription of task events until a final state, an error, or the stream's end. */
  const follow = useCallback(
    (mode: 'stream' | 'resubscribe', subscribe: (handlers: StreamHandlers) => { unsubscribe(): void }, taskId?: string) => {
      const current: RunningTurn = { settled: false, stop: () => {}, ...(taskId ? { taskId } : {}) };
      running.current = current;
      setTurn({ phase: 'running', mode, startedAt: Date.now(), ...(taskId ? { taskId } : {}) });
      const endedEarly = (message: string, error?: AppErrorShape) =>
        settle(
          current,
          current.taskId
            ? { phase: 'dropped', taskId: current.taskId, message }
            : { phase: 'failed', error: error ?? { code: 'ExecutionFailed', message, retryable: true } },
        );
      let connected = false;
      const subscription = subscribe({
        onConnectionStateChange({ state, error }) {
          if (state === 'pending') connected = true;
          // Over HTTP the SSE link reconnects after a retryable error or a lost connection, which runs
          // the procedure again and would send the message twice; the turn ends here instead.
          else if (state === 'connecting' && connected && !current.settled) {
            const app = error ? appErrorOf(error) : undefined;
            endedEarly(app?.message ?? 'The connection to the backend was lost.', app);
            current.stop();
          }
        },
        onData(data) {
          if (current.settled) return;
          const event = data as A2aEvent;
          setConversation((c) => withEvent(c, event));
          if (event.taskId && !current.taskId) {
            current.taskId = event.taskId;
            setTurn({ phase: 'running', mode, startedAt: Date.now(), taskId: event.taskId });
          }
          if (event.final) settle(current, { phase: 'idle' });
        },
        onError(error) {
          const app = appErrorOf(error);
          endedEarly(app.message, app);
        },
        onComplete() {
          endedEarly('The stream closed before the task reached a final state.');
        },
      });
      current.stop = () => subscription.unsubscribe();
      if (current.settled) subscription.unsubscribe();
    },
    [settle],
  );

  const resubscribe = useCallback(
    (taskId: string) => {
      if (running.current) return;
      follow('resubscribe', (handlers) => client.a2a.resubscribe.subscribe({ agent, taskId }, handlers), taskId);
    },
    [client, agent, follow],
  );

  const send = useCallback(
    (text: string, options: { stream: boolean; confirmed?: boolean }) => {
      if (running.current || !text.trim()) return;
      const current = conversationRef.current;
      const continued = waitingTask(current);
      const input = {
        agent,
        message: text,
        ...(current.contextId ? { contextId: current.contextId } : {}),
        ...(continued ? { taskId: continued.taskId } : {}),
        // The operator approved a turn the agent's ToolPermission wants approved.
        ...(options.confirmed ? { confirmed: true } : {}),
      };
      setConversation((c) =>
        withMessage(c, { id: `local-${++messageSeq}`, role: 'user', text, at: Date.now(), ...(continued ? { taskId: continued.taskId } : {}) }),
      );
      if (options.stream) {
        follow('stream', (handlers) => client.a2a.stream.subscribe(input, handlers), continued?.taskId);
        return;
      }
      const controller = new AbortController();
      const turnState: RunningTurn = { settled: false, stop: () => controller.abort(), ...(continued ? { taskId: continued.taskId } : {}) };
      running.current = turnState;
      setTurn({ phase: 'running', mode: 'blocking', startedAt: Date.now(), ...(continued ? { taskId: continued.taskId } : {}) });
      client.a2a.send.mutate(input, { signal: controller.signal }).then(
        (result) => {
          if (turnState.settled) return;
          setConversation((c) => withSendResult(c, result as A2aSendResult, Date.now()));
          settle(turnState, { phase: 'idle' });
        },
        (error: unknown) => settle(turnState, { phase: 'failed', error: appErrorOf(error) }),
      );
    },
    [client, agent, follow, settle],
  );

  /**
   * Cancels the running turn's task, or the task waiting for input. The stream is dropped first (the
   * backend cancels on unsubscribe too); the explicit CancelTask then reports the task's state.
   */
  const cancel = useCallback(async () => {
    const current = running.current;
    const taskId = current ? current.taskId : waitingTask(conversationRef.current)?.taskId;
    abandon(running);
    if (!taskId) {
      setTurn({ phase: 'canceled', message: 'Stopped waiting. The agent had not named a task yet, so it may still be working.' });
      return;
    }
    setTurn({ phase: 'canceling', taskId });
    let view: A2aTaskView | undefined;
    try {
      view = (await client.a2a.cancelTask.mutate({ agent, taskId })) as A2aTaskView;
    } catch (cancelError) {
      // The backend may have canceled it already on unsubscribe; the task's state tells.
      view = (await client.a2a.getTask.query({ agent, taskId }).catch(() => undefined)) as A2aTaskView | undefined;
      if (!view || !isTerminalA2aState(view.state)) {
        if (view) setConversation((c) => withTaskView(c, view!, Date.now()));
        setTurn({ phase: 'failed', error: appErrorOf(cancelError) });
        refreshThreads();
        return;
      }
    }
    setConversation((c) => withTaskView(c, view, Date.now()));
    if (isTerminalA2aState(view.state)) {
      setTurn({ phase: 'canceled', message: `Task ${shortId(taskId)} is ${view.state}.` });
      refreshThreads();
    } else {
      // Canceling is asynchronous at some agents: follow the task to its final state.
      follow('resubscribe', (handlers) => client.a2a.resubscribe.subscribe({ agent, taskId }, handlers), taskId);
    }
  }, [client, agent, follow, refreshThreads]);

  const reset = useCallback((next: Conversation) => {
    abandon(running);
    setConversation(next);
    setTurn({ phase: 'idle' });
  }, []);

  const startNew = useCallback(() => reset(emptyConversation()), [reset]);
  const open = useCallback((thread: A2aThread) => reset(fromThread(thread)), [reset]);
  const dismiss = useCallback(() => setTurn((t) => (t.phase === 'running' || t.phase === 'canceling' ? t : { phase: 'idle' })), []);

  useEffect(() => () => abandon(running), []);

  return { conversation, turn, send, cancel, resubscribe, startNew, open, dismiss };
}

export type ConversationController = ReturnType<typeof useConversation>;
