import { AppError, isAppError } from '../../shared/errors';

/**
 * RockBot classification: timeouts are Timeout (retryable), argument errors are
 * InvalidArguments, everything else is ExecutionFailed (not retryable). AppErrors keep their own code
 * and retryability, so an executor that knows better (ConnectionFailed, retryable) is believed.
 */
export function classifyError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return new AppError('Timeout', error.message, { cause: error });
    return new AppError('ExecutionFailed', withUnderlyingCause(error.message || error.name, error.cause), { cause: error });
  }
  return new AppError('ExecutionFailed', typeof error === 'string' ? error : 'The tool failed without saying why.', { cause: error });
}

/**
 * Node's fetch says only "fetch failed" and keeps why in its cause (a reset connection, a refused
 * port, a TLS failure): the record and the operator get both, e.g. "fetch failed: other side closed
 * (UND_ERR_SOCKET)".
 */
function withUnderlyingCause(message: string, cause: unknown): string {
  if (!(cause instanceof Error) || !cause.message || message.includes(cause.message)) return message;
  const code = (cause as { code?: unknown }).code;
  return `${message}: ${cause.message}${typeof code === 'string' && !cause.message.includes(code) ? ` (${code})` : ''}`;
}
