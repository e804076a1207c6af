import { AppError } from '../../shared/errors';
import { a2aRouter } from './a2aRouter';
import { appsRouter } from './appsRouter';
import { approvalsRouter } from './approvalsRouter';
import { agentToolsRouter } from './agentToolsRouter';
import { agentsRouter } from './agentsRouter';
import { busRouter } from './busRouter';
import { collectionsRouter } from './collectionsRouter';
import { evalsRouter } from './evalsRouter';
import { playgroundRouter } from './playgroundRouter';
import { gatewayRouter } from './gatewayRouter';
import { mediationRouter } from './mediationRouter';
import { grpcRouter } from './grpcRouter';
import { historyRouter } from './historyRouter';
import { createKubeRouter } from './kubeRouter';
import { httpRouter } from './httpRouter';
import { lockRouter } from './lockRouter';
import { mcpRegistryRouter } from './mcpRegistryRouter';
import { mcpRouter } from './mcpRouter';
import { metricsRouter } from './metricsRouter';
import { oauthRouter } from './oauthRouter';
import { createResourcesRouter } from './resourcesRouter';
import { systemRouter } from './systemRouter';
import { tasksRouter } from './tasksRouter';
import { toolsRouter } from './toolsRouter';
import { createCallerFactory, router } from './trpc';

export const appRouter = router({
  system: systemRouter,
  mcp: mcpRouter,
  mcpRegistry: mcpRegistryRouter,
  tools: toolsRouter,
  agentTools: agentToolsRouter,
  agents: agentsRouter,
  a2a: a2aRouter,
  history: historyRouter,
  http: httpRouter,
  grpc: grpcRouter,
  collections: collectionsRouter,
  resources: createResourcesRouter((ctx) => ctx.core.resources),
  kube: createKubeRouter((ctx) => {
    if (!ctx.core.kube) throw new AppError('InvalidInput', 'The Cluster view runs in the console (tooldeck serve or the desktop app)');
    return ctx.core.kube;
  }),
  oauth: oauthRouter,
  metrics: metricsRouter,
  lock: lockRouter,
  tasks: tasksRouter,
  apps: appsRouter,
  approvals: approvalsRouter,
  gateway: gatewayRouter,
  mediation: mediationRouter,
  evals: evalsRouter,
  playground: playgroundRouter,
  bus: busRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
