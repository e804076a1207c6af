import { operatorCaller } from '../../shared/caller';
import { AppError, isAppError } from '../../shared/errors';
import { issuesSentence, validationIssues } from '../../shared/issuesSentence';
import type { Core } from '../../main/core';

type RouterCaller = ReturnType<typeof import('../../main/rpc/router').createCaller>;

/**
 * The typed contract the console's windows use, called in this process: a CLI command that goes
 * through it behaves as the UI does, since both run the same procedures. Errors come out as the
 * AppErrors the procedures threw (the caller wraps them in TRPCErrors), so commands keep choosing
 * exit codes by error code; input the contract refuses is an InvalidInput naming each field.
 */
export async function contractFor(core: Core, signal?: AbortSignal): Promise<RouterCaller> {
  const { createCaller } = await import('../../main/rpc/router');
  return unwrapping(createCaller({ core, caller: operatorCaller('cli') }, signal ? { signal } : {}));
}

function unwrapping<T extends object>(target: T): T {
  return new Proxy(target, {
    get: (object, key) => {
      const value = Reflect.get(object, key) as unknown;
      return (typeof value === 'function' || (typeof value === 'object' && value !== null)) && typeof key === 'string' ? unwrapping(value as object) : value;
    },
    apply: (fn, self, args) => {
      try {
        const result = Reflect.apply(fn as (...a: unknown[]) => unknown, self, args);
        return result instanceof Promise ? result.catch(rethrowCause) : result;
      } catch (error) {
        return rethrowCause(error);
      }
    },
  });
}

function rethrowCause(error: unknown): never {
  const cause = (error as { cause?: unknown }).cause;
  if (isAppError(cause)) throw cause;
  const issues = validationIssues(cause);
  if (issues) throw new AppError('InvalidInput', issuesSentence(issues));
  throw error;
}
