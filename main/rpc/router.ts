import { systemRouter } from './systemRouter';
import { createCallerFactory, router } from './trpc';

export const appRouter = router({
  system: systemRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
