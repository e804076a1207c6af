import { a2aRouter } from './a2aRouter';
import { historyRouter } from './historyRouter';
import { mcpRouter } from './mcpRouter';
import { metricsRouter } from './metricsRouter';
import { systemRouter } from './systemRouter';
import { toolsRouter } from './toolsRouter';
import { createCallerFactory, router } from './trpc';

export const appRouter = router({
  system: systemRouter,
  mcp: mcpRouter,
  tools: toolsRouter,
  a2a: a2aRouter,
  history: historyRouter,
  metrics: metricsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
