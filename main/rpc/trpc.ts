import { initTRPC, TRPCError, type TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { AppError } from '../../shared/errors';
import { issuesSentence, validationIssues } from '../../shared/issuesSentence';
import type { Caller } from '../../shared/caller';
import type { Core } from '../core';

export interface RpcContext {
  core: Core;
  /**
   * The request came from a page in browser mode. Operations that start programs (a stdio
   * server's command) then need the exact command line confirmed by the operator; the desktop
   * app and the CLI are the operator's own hands and keep their behaviour.
   */
  fromBrowser?: boolean;
  /**
   * Who the host's requests come from and through which way in: the operator via `ui` for the
   * desktop app and browser mode alike, `cli` for the CLI. Calls the router makes carry it.
   */
  caller: Caller;
}

const trpcCodeFor: Record<AppError['code'], TRPCError['code']> = {
  ToolNotFound: 'NOT_FOUND',
  InvalidArguments: 'BAD_REQUEST',
  Timeout: 'TIMEOUT',
  ExecutionFailed: 'INTERNAL_SERVER_ERROR',
  Canceled: 'CLIENT_CLOSED_REQUEST',
  PolicyDenied: 'FORBIDDEN',
  ConnectionFailed: 'BAD_GATEWAY',
  NotFound: 'NOT_FOUND',
  AlreadyExists: 'CONFLICT',
  InvalidInput: 'BAD_REQUEST',
  Unauthorized: 'UNAUTHORIZED',
  ResultTooLarge: 'PAYLOAD_TOO_LARGE',
  Internal: 'INTERNAL_SERVER_ERROR',
};

const t = initTRPC.context<RpcContext>().create({
  // The renderer gets a code and a message, never a stack.
  errorFormatter({ shape, error }) {
    const appError = error.cause instanceof AppError ? error.cause : undefined;
    const { stack: _stack, ...data } = shape.data;
    // Input that fails its schema: one line naming each field, not zod's JSON dump of issues.
    const issues = error.code === 'BAD_REQUEST' ? validationIssues(error.cause) : undefined;
    const message = issues ? issuesSentence(issues) : shape.message;
    return {
      ...shape,
      message,
      data: {
        ...data,
        app: appError?.toShape() ?? (error.code === 'BAD_REQUEST' ? { code: 'InvalidInput', message, retryable: false } : undefined),
      },
    };
  },
});

// The HTTP subscription link reconnects, and so runs the procedure again, after an error with one
// of these codes. A failed tool call or agent turn must not be silently sent a second time, so
// subscriptions report their errors with a code the link treats as final.
const RECONNECTING_CODES = new Set<TRPC_ERROR_CODE_KEY>(['BAD_GATEWAY', 'SERVICE_UNAVAILABLE', 'GATEWAY_TIMEOUT', 'INTERNAL_SERVER_ERROR']);

function toTRPCError(error: unknown, subscription: boolean): TRPCError {
  const appError = error instanceof AppError ? error : error instanceof TRPCError && error.cause instanceof AppError ? error.cause : undefined;
  let code: TRPC_ERROR_CODE_KEY = appError ? trpcCodeFor[appError.code] : error instanceof TRPCError ? error.code : 'INTERNAL_SERVER_ERROR';
  if (subscription && RECONNECTING_CODES.has(code)) code = 'UNPROCESSABLE_CONTENT';
  if (!appError && error instanceof TRPCError && code === error.code) return error;
  const cause = appError ?? (error instanceof Error ? error : new Error(String(error)));
  return new TRPCError({ code, message: cause.message, cause });
}

async function* withFinalErrors<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* source;
  } catch (error) {
    throw toTRPCError(error, true);
  }
}

/** Services throw AppError; this maps it to a tRPC error so HTTP status and codes line up. */
const appErrors = t.middleware(async ({ type, next }) => {
  const result = await next();
  if (!result.ok) {
    if (result.error.cause instanceof AppError || type === 'subscription') throw toTRPCError(result.error, type === 'subscription');
    return result;
  }
  if (type === 'subscription' && result.data && typeof (result.data as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    return { ...result, data: withFinalErrors(result.data as AsyncIterable<unknown>) };
  }
  return result;
});

export const router = t.router;
export const procedure = t.procedure.use(appErrors);
export const createCallerFactory = t.createCallerFactory;
