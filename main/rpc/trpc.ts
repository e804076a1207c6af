import { initTRPC, TRPCError } from '@trpc/server';
import { AppError } from '../../shared/errors';
import type { Core } from '../core';

export interface RpcContext {
  core: Core;
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
  Internal: 'INTERNAL_SERVER_ERROR',
};

const t = initTRPC.context<RpcContext>().create({
  // The renderer gets a code and a message, never a stack.
  errorFormatter({ shape, error }) {
    const appError = error.cause instanceof AppError ? error.cause : undefined;
    const { stack: _stack, ...data } = shape.data;
    return {
      ...shape,
      data: {
        ...data,
        app: appError?.toShape() ?? (error.code === 'BAD_REQUEST' ? { code: 'InvalidInput', message: error.message, retryable: false } : undefined),
      },
    };
  },
});

/** Services throw AppError; this maps it to a tRPC error so HTTP status and codes line up. */
const appErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: trpcCodeFor[cause.code], message: cause.message, cause });
  }
  return result;
});

export const router = t.router;
export const procedure = t.procedure.use(appErrors);
export const createCallerFactory = t.createCallerFactory;
