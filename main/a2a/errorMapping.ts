import { A2AError, RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { AppError, isAppError } from '../../shared/errors';

const METHOD_NOT_FOUND = -32601;

/** Node's fetch hides the reason in `cause`; say it plainly (refused, unknown host, reset…). */
export function describeFetchFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host lookup failed',
    ECONNRESET: 'connection reset',
    ETIMEDOUT: 'connection timed out',
    EHOSTUNREACH: 'host unreachable',
    UND_ERR_SOCKET: 'connection closed by the agent',
  };
  if (code) return `${known[code] ?? cause?.message ?? 'network error'} (${code})`;
  return cause?.message ?? (error as Error)?.message ?? String(error);
}

/** The agent does not implement the method: UnsupportedOperation, or JSON-RPC "method not found". */
export function isUnsupported(error: unknown): boolean {
  if ((error as { cause?: unknown })?.cause instanceof A2AError) return isUnsupported((error as { cause: unknown }).cause);
  if (error instanceof UnsupportedOperationError) return true;
  return error instanceof RequestMalformedError && (error as { envelopeCode?: number }).envelopeCode === METHOD_NOT_FOUND;
}

/**
 * Turns whatever the SDK or the network threw into an AppError with a message a person can act on.
 * `step` tells where it broke: `transport` (could not talk), `agent` (the agent said no), `protocol`
 * (the agent answered something that is not A2A).
 */
export function toAppError(error: unknown, ctx: { agent: string; operation: string }): AppError {
  if (isAppError(error)) return error;
  const err = error as Error & { cause?: unknown };
  if (err?.name === 'AbortError') return new AppError('Canceled', `${ctx.operation} on ${ctx.agent} was canceled.`, { step: 'transport' });
  if (err?.name === 'TimeoutError') return new AppError('Timeout', `${ctx.operation} on ${ctx.agent} timed out.`, { step: 'transport' });
  if (err instanceof TypeError && /fetch failed|terminated/i.test(err.message)) {
    return new AppError('ConnectionFailed', `Cannot reach ${ctx.agent}: ${describeFetchFailure(err)}.`, { step: 'transport', cause: err });
  }
  const semantic = err?.cause instanceof A2AError ? err.cause : err;
  if (isUnsupported(semantic)) {
    return new AppError('ExecutionFailed', `${ctx.operation} is not supported by this agent (${ctx.agent}): ${semantic.message}`, {
      step: 'agent',
      cause: err,
    });
  }
  if (semantic instanceof TaskNotFoundError) return new AppError('NotFound', `${ctx.agent}: ${semantic.message}`, { step: 'agent', cause: err });
  if (semantic instanceof TaskNotCancelableError) {
    return new AppError('ExecutionFailed', `${ctx.agent} cannot cancel this task (it has already finished): ${semantic.message}`, { step: 'agent', cause: err });
  }
  if (semantic instanceof A2AError) {
    return new AppError('ExecutionFailed', `${ctx.agent} refused ${ctx.operation}: ${semantic.message}`, { step: 'agent', cause: err });
  }
  const message = err?.message ?? String(error);
  const http = /Status: (\d{3})/.exec(message) ?? /HTTP (\d{3})/.exec(message);
  if (http) {
    const status = Number(http[1]);
    if (status === 401 || status === 403) {
      return new AppError('Unauthorized', `${ctx.agent} rejected the credentials for ${ctx.operation} (HTTP ${status}).`, { step: 'transport', cause: err });
    }
    return new AppError(status >= 500 ? 'ConnectionFailed' : 'ExecutionFailed', `${ctx.agent} answered ${ctx.operation} with HTTP ${status}.`, {
      step: 'transport',
      retryable: status >= 500,
      cause: err,
    });
  }
  return new AppError('ExecutionFailed', `${ctx.agent} sent a response to ${ctx.operation} that does not follow the A2A protocol: ${message}`, {
    step: 'protocol',
    cause: err,
  });
}
