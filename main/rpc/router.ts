import { mcpRouter } from './mcpRouter';
import { systemRouter } from './systemRouter';
import { toolsRouter } from './toolsRouter';
import { createCallerFactory, router } from './trpc';

export const appRouter = router({
  system: systemRouter,
  mcp: mcpRouter,
  tools: toolsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
