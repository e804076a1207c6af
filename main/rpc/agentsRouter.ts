import { z } from 'zod';
import { ModelPattern } from '../../shared/agents';
import { GatewayAgentName } from '../../shared/gateway';
import { procedure, router } from './trpc';

/**
 * The console's Agents view: "what may agent X do, and why?" — the same answer `tooldeck agents`
 * prints and every door enforces (main/agents/Agents.ts). Only the operator reaches this router.
 */
export const agentsRouter = router({
  list: procedure.query(({ ctx }) => ctx.core.agents.list()),
  show: procedure.input(z.object({ name: z.string().min(1).max(200) })).query(({ ctx, input }) => ctx.core.agents.show(input.name)),
  /** Grants exactly these `<provider>/<model>` patterns (none: no model) and, when given, a daily token budget (null: none). */
  grantModels: procedure
    .input(z.object({ name: GatewayAgentName, models: z.array(ModelPattern).max(100), dailyTokens: z.number().int().positive().nullable().optional() }))
    .mutation(({ ctx, input }) => ctx.core.agents.models.grant(input.name, input.models, input.dailyTokens === undefined ? {} : { dailyTokens: input.dailyTokens })),
});
