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
    return new AppError('ExecutionFailed', error.message || error.name, { cause: error });
  }
  return new AppError('ExecutionFailed', typeof error === 'string' ? error : 'The tool failed without saying why.', { cause: error });
}
