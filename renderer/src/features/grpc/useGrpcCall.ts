import type { AppErrorShape } from '../../../../shared/errors';
import type { GrpcCallResult } from '../../../../shared/grpc';
import type { InvocationOutcome } from '../../../../shared/registry';
import { useInvokeStreamAs, type InvokeStreamFold, type InvokeStreamState } from '../invoke/useInvokeStream';

export type GrpcCallState =
  | { phase: 'idle' }
  | { phase: 'running'; startedAt: number; messages: unknown[] }
  | { phase: 'done'; outcome: InvocationOutcome; call?: GrpcCallResult; messages: unknown[] }
  | { phase: 'failed'; error: AppErrorShape; messages: unknown[] }
  | { phase: 'canceled'; elapsedMs: number; messages: unknown[] };

/** A streamed response arrives as a progress message (JSON when it parses), kept in order. */
const streamedMessages: InvokeStreamFold<unknown[]> = {
  initial: () => [],
  step(messages, update) {
    if (update.type !== 'progress' || update.message === undefined) return messages;
    try {
      return [...messages, JSON.parse(update.message)];
    } catch {
      return [...messages, update.message];
    }
  },
};

function grpcCallState(state: InvokeStreamState<unknown[]>): GrpcCallState {
  switch (state.phase) {
    case 'idle':
      return state;
    case 'running':
      return { phase: 'running', startedAt: state.startedAt, messages: state.running };
    case 'done': {
      const { outcome } = state;
      if (outcome.error) return { phase: 'failed', error: outcome.error, messages: state.running };
      const call = outcome.result?.structuredContent as GrpcCallResult | undefined;
      return { phase: 'done', outcome, ...(call ? { call } : {}), messages: call?.responses ?? state.running };
    }
    case 'failed':
      return { phase: 'failed', error: state.error, messages: state.running };
    case 'canceled':
      return { phase: 'canceled', elapsedMs: state.elapsedMs, messages: state.running };
  }
}

/**
 * One call of a reflected method through the pipeline (useInvokeStream): streamed responses arrive
 * as progress and are kept in order as they come; cancelling unsubscribes, which cancels the gRPC
 * call at the server.
 */
export function useGrpcCall() {
  return useInvokeStreamAs(streamedMessages, grpcCallState);
}
