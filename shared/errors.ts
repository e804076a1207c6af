import { z } from 'zod';

/**
 * Codes for every error that crosses the contract. The renderer and the CLI branch on the code;
 * the message is for people. No stack ever crosses.
 */
export const ErrorCode = z.enum([
  'ToolNotFound',
  'InvalidArguments',
  'Timeout',
  'ExecutionFailed',
  'Canceled',
  'PolicyDenied',
  'ConnectionFailed',
  'NotFound',
  'AlreadyExists',
  'InvalidInput',
  'Unauthorized',
  /** A result larger than the console accepts (the hard limit, 64 MiB by default): named with both sizes. */
  'ResultTooLarge',
  'Internal',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const AppErrorShape = z.object({
  code: ErrorCode,
  message: z.string(),
  retryable: z.boolean(),
  /** Which step failed, when the operation has steps (e.g. spawn, transport, negotiation). */
  step: z.string().optional(),
  /** The items the message is about, for a view to list (e.g. command lines to confirm). */
  details: z.array(z.string()).optional(),
});
export type AppErrorShape = z.infer<typeof AppErrorShape>;

const retryableByDefault: Record<ErrorCode, boolean> = {
  ToolNotFound: false,
  InvalidArguments: false,
  Timeout: true,
  ExecutionFailed: false,
  Canceled: false,
  PolicyDenied: false,
  ConnectionFailed: true,
  NotFound: false,
  AlreadyExists: false,
  InvalidInput: false,
  Unauthorized: false,
  ResultTooLarge: false,
  Internal: false,
};

/** An error with a contract code. Services throw these; the RPC layer forwards code + message only. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly step?: string;
  readonly details?: string[];

  constructor(code: ErrorCode, message: string, options: { retryable?: boolean; step?: string; details?: string[]; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.retryable = options.retryable ?? retryableByDefault[code];
    this.step = options.step;
    this.details = options.details;
  }

  toShape(): AppErrorShape {
    return { code: this.code, message: this.message, retryable: this.retryable, ...(this.step ? { step: this.step } : {}), ...(this.details ? { details: this.details } : {}) };
  }
}

/**
 * A command the user has not confirmed is not started (browser mode, an opened folder, the CLI
 * without a terminal): the refusal names the exact lines in `details`, and the same request sent
 * again with them confirmed goes through.
 */
export const CONFIRM_LAUNCH_STEP = 'confirm-launch';

export function launchConfirmationRequired(lines: string[]): AppError {
  return new AppError('PolicyDenied', `Starting ${lines.length === 1 ? 'a command' : `${lines.length} commands`} needs the exact command line confirmed first: ${lines.join(' ; ')}`, {
    step: CONFIRM_LAUNCH_STEP,
    details: lines,
  });
}

/**
 * What went wrong, for the end of a sentence such as `server reflection on HOST:PORT: <reason>`:
 * never empty, since some libraries throw errors with no message at all.
 */
export function reasonOf(error: unknown, fallback = 'failed without saying why'): string {
  if (error instanceof Error) return error.message.trim() || (error.name !== 'Error' ? error.name : '') || fallback;
  if (typeof error === 'string' && error.trim()) return error;
  return fallback;
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
