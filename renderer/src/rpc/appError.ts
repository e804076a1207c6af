import type { AppErrorShape } from '../../../shared/errors';

/** The contract's error on a tRPC failure (the router puts it in `data.app`), else a generic one. */
export function appErrorOf(error: unknown): AppErrorShape {
  const app = (error as { data?: { app?: AppErrorShape } } | null)?.data?.app;
  return app ?? { code: 'Internal', message: error instanceof Error ? error.message : String(error), retryable: false };
}
