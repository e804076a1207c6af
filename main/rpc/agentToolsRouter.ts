import { CompileAgentInput, WriteAgentFilesInput } from '../../shared/agentTools';
import { procedure, router } from './trpc';

/** Agents of the workspace's pod files: their resolved tool grants, and their compiled files (Clawdapus tools.json / Language Operator config.yaml). */
export const agentToolsRouter = router({
  list: procedure.query(({ ctx }) => ctx.core.agentTools.list()),
  compile: procedure.input(CompileAgentInput).query(({ ctx, input }) => ctx.core.agentTools.compile(input.agent, input.format)),
  write: procedure.input(WriteAgentFilesInput).mutation(({ ctx, input }) => ctx.core.agentTools.write(input.agent, input.formats)),
});
