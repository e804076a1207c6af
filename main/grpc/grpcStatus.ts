import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { AppError, type ErrorCode } from '../../shared/errors';

/** The canonical status names, by code (grpc-js has the enum, not the names as they are written). */
export const STATUS_NAMES: readonly string[] = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

export function statusName(code: number): string {
  return STATUS_NAMES[code] ?? `STATUS_${code}`;
}

/**
 * Tooldeck's code for each gRPC status, and whether a retry may help. "Not now" statuses
 * (UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED, DEADLINE_EXCEEDED) are retryable, so the tool's runtime
 * retry policy applies to them; everything else is the caller's or the tool's problem.
 */
const MAPPING: Record<number, { code: ErrorCode; retryable: boolean }> = {
  [Status.CANCELLED]: { code: 'Canceled', retryable: false },
  [Status.UNKNOWN]: { code: 'ExecutionFailed', retryable: false },
  [Status.INVALID_ARGUMENT]: { code: 'InvalidArguments', retryable: false },
  [Status.DEADLINE_EXCEEDED]: { code: 'Timeout', retryable: true },
  [Status.NOT_FOUND]: { code: 'ToolNotFound', retryable: false },
  [Status.ALREADY_EXISTS]: { code: 'ExecutionFailed', retryable: false },
  [Status.PERMISSION_DENIED]: { code: 'Unauthorized', retryable: false },
  [Status.RESOURCE_EXHAUSTED]: { code: 'ExecutionFailed', retryable: true },
  [Status.FAILED_PRECONDITION]: { code: 'ExecutionFailed', retryable: false },
  [Status.ABORTED]: { code: 'ExecutionFailed', retryable: true },
  [Status.OUT_OF_RANGE]: { code: 'InvalidArguments', retryable: false },
  [Status.UNIMPLEMENTED]: { code: 'ToolNotFound', retryable: false },
  [Status.INTERNAL]: { code: 'ExecutionFailed', retryable: false },
  [Status.UNAVAILABLE]: { code: 'ExecutionFailed', retryable: true },
  [Status.DATA_LOSS]: { code: 'ExecutionFailed', retryable: false },
  [Status.UNAUTHENTICATED]: { code: 'Unauthorized', retryable: false },
};

/**
 * grpc-js answers UNAVAILABLE both when the server says so and when no connection could be made; its
 * own wording tells the two apart. Only the second is a ConnectionFailed.
 */
const CONNECTION_LEVEL = /No connection established|Name resolution failed|connect ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|getaddrinfo|Connection dropped|Failed to connect|handshake|certificate|SSL|TLS|Protocol error|Received RST_STREAM|Stream refused|GOAWAY/i;

export function isConnectionFailure(error: Pick<ServiceError, 'code' | 'details'>): boolean {
  return error.code === Status.UNAVAILABLE && CONNECTION_LEVEL.test(error.details ?? '');
}

/** A deadline that passed before the call had a connection (grpc-js says what it was still waiting for). */
export function expiredBeforeConnecting(error: Pick<ServiceError, 'code' | 'details'>): boolean {
  return error.code === Status.DEADLINE_EXCEEDED && /waiting for name resolution|waiting for LB pick/i.test(error.details ?? '');
}

/** A failed call as an AppError: `what` names the call for the message (e.g. `grpc:weather.forecast`). */
export function appErrorFromStatus(error: Pick<ServiceError, 'code' | 'details'>, what: string): AppError {
  const name = statusName(error.code);
  const details = error.details || 'no details';
  if (isConnectionFailure(error)) return new AppError('ConnectionFailed', `${what}: cannot connect (${name}): ${details}`, { retryable: true });
  const mapped = MAPPING[error.code] ?? { code: 'ExecutionFailed' as const, retryable: false };
  return new AppError(mapped.code, `${what} failed with ${name}: ${details}`, { retryable: mapped.retryable, step: 'grpc' });
}
