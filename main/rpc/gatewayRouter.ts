import { z } from 'zod';
import { agentCaller } from '../../shared/caller';
import { GatewayAgentName, type GatewayAgentOverview } from '../../shared/gateway';
import { gatewayToolNames } from '../gateway/gatewayToolNames';
import { watch } from '../platform/AsyncQueue';
import { startConsoleGateway, stopConsoleGateway } from '../gateway/consoleGateway';
import type { Core } from '../core';
import { procedure, router } from './trpc';

/** Each agent with a credential, what it may call right now (as it names the tools) and its open sessions. */
export async function agentOverviews(core: Core): Promise<GatewayAgentOverview[]> {
  const { sessions } = core.agents.traffic.snapshot();
  return (await core.agents.credentials.list()).map((agent) => ({
    ...agent,
    granted: [...gatewayToolNames(core.agents.grants.granted(agent.name, agentCaller(agent.name, 'gateway')))].map(([name, entry]) => ({ name, entry: entry.name })),
    sessions: sessions.filter((session) => session.agent === agent.name).length,
  }));
}

/**
 * The agent names the workspace declares, to name a credential after: Clawdapus pod services,
 * Language Operator LanguageAgents, and the target_agents of scoped Orloj ToolPermissions.
 */
export async function declaredAgents(core: Core): Promise<string[]> {
  const names = new Set<string>();
  for (const agent of await core.agentTools.list()) names.add(agent.name);
  for (const doc of core.resources.workspace.documents()) if (doc.identity?.kind === 'LanguageAgent' && doc.valid) names.add(doc.identity.name);
  for (const permission of core.resources.permissions()) for (const agent of permission.targetAgents ?? []) names.add(agent);
  return [...names].filter((name) => GatewayAgentName.safeParse(name).success).sort();
}

/** The gateway's state and its agents, the part of the Gateway section that changes without traffic. */
async function overview(core: Core) {
  return { status: core.gateway.status(), agents: await agentOverviews(core) };
}

/**
 * Whatever changes the overview: the gateway started or stopped, a credential created or revoked
 * (here or by `tooldeck gateway token` in another process), grants or tools changed, a session
 * opened or closed. A call that only adds to a session's count does not recompute every agent's grants.
 */
function onOverviewChange(core: Core, notify: () => void): () => void {
  const sessionsKey = () => core.agents.traffic.sessionIds().join('\n');
  let sessions = sessionsKey();
  const stops = [
    core.gateway.onStatusChange(notify),
    core.agents.credentials.onChange(notify),
    core.gateway.onToolsChanged(notify),
    core.agents.traffic.onChange(() => {
      const next = sessionsKey();
      if (next === sessions) return;
      sessions = next;
      notify();
    }),
  ];
  return () => stops.forEach((stop) => stop());
}

const StartInput = z.object({ port: z.number().int().min(0).max(65535).optional(), host: z.string().optional() }).optional();

/**
 * The console's Gateway section: start and stop the MCP gateway for agents, their credentials
 * (shown once when created, revocable), what each may call, and the calls as they happen. Only the
 * operator reaches this router (the console's own token); agents reach the gateway's own port.
 */
export const gatewayRouter = router({
  status: procedure.query(({ ctx }) => ctx.core.gateway.status()),
  /** Binds a loopback address only, and is kept on across restarts until stopped here (see consoleGateway). */
  start: procedure.input(StartInput).mutation(({ ctx, input }) => startConsoleGateway(ctx.core, input ?? {})),
  stop: procedure.mutation(({ ctx }) => stopConsoleGateway(ctx.core)),
  agents: procedure.query(({ ctx }) => agentOverviews(ctx.core)),
  /** Agent names the workspace declares (pods, LanguageAgents, scoped ToolPermissions): what a new credential is usually named. */
  declaredAgents: procedure.query(({ ctx }) => declaredAgents(ctx.core)),
  /** Status and agents now, then again whenever either changes. */
  watch: procedure.subscription(async function* ({ ctx, signal }) {
    yield* watch((notify) => onOverviewChange(ctx.core, notify), () => overview(ctx.core), signal, 100);
  }),
  /** A new credential for `name` (replacing an earlier one): `NAME:SECRET`, returned this once and never again. */
  createCredential: procedure.input(z.object({ name: GatewayAgentName })).mutation(async ({ ctx, input }) => ({ credential: await ctx.core.agents.credentials.create(input.name) })),
  /** Revokes an agent's credential and ends its open sessions at once. */
  revoke: procedure.input(z.object({ name: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    await ctx.core.agents.credentials.revoke(input.name);
    ctx.core.gateway.endSessionsOf(input.name);
  }),
  /** The agents' open sessions and their latest calls (running, held for approval, done). */
  traffic: procedure.query(({ ctx }) => ctx.core.agents.traffic.snapshot()),
  /** The traffic now, then again as calls start, wait, finish and sessions open or close. */
  watchTraffic: procedure.subscription(async function* ({ ctx, signal }) {
    yield* watch((notify) => ctx.core.agents.traffic.onChange(notify), () => ctx.core.agents.traffic.snapshot(), signal, 100);
  }),
});
