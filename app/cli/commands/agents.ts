import type { Command } from 'commander';
import type { AgentView } from '../../../shared/agents';
import { isAppError } from '../../../shared/errors';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { contractFor } from '../contract';
import { jsonForTerminal, safeForTerminal, terminalName } from '../terminalText';

/** An agent's doors in a few words: `credential, cluster, bus` (or `no door yet`). */
export function doorWords(doors: AgentView['doors']): string {
  const words = [
    ...(doors.credential ? [doors.credential.revokedAt ? 'credential (revoked)' : 'credential'] : []),
    ...(doors.cluster ? ['cluster'] : []),
    ...(doors.bus ? ['bus'] : []),
  ];
  return words.length > 0 ? words.join(', ') : 'no door yet';
}

/** `file: rule` for each place a tool is granted. */
function grantedByWords(tool: AgentView['tools'][number]): string {
  return tool.grantedBy.map((origin) => `${origin.kind}${origin.file ? ` ${origin.file}` : ''}: ${origin.rule}`).join('; ');
}

/** The core with every source connected (bounded), so grants resolve against what can be called; the ones that did not connect are named. */
async function connectedCore(ctx: CliContext) {
  const core = await ctx.getCore();
  for (const missing of await core.connectSources()) ctx.io.stderr(`${terminalName(missing.id)}: not connected (${safeForTerminal(missing.reason, 300)}); its tools are not counted\n`);
  return core;
}

/**
 * `tooldeck agents`: one answer to "what may agent X do, and why?" — the tools each agent is
 * granted and where (pod file, ToolPermission, LanguageAgent), the verdict policy gives each for
 * it in Orloj's words, its models and its doors. Every door enforces exactly this.
 */
export function registerAgents(program: Command, ctx: CliContext) {
  const agents = program.command('agents').description('Agents: what each may call and why, its models, its doors (the gateway, mediation, the bus)');
  agents
    .command('list')
    .description('Every agent with a credential or a grant')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const list = await (await contractFor(await connectedCore(ctx))).agents.list();
      if (options.json) return void ctx.io.stdout(`${jsonForTerminal(list)}\n`);
      if (list.length === 0) return void ctx.io.stdout('No agents. Grant one tools in a claw-pod.yml, a scoped ToolPermission or a LanguageAgent, or create a credential with: tooldeck gateway token create NAME\n');
      ctx.io.stdout(`${'AGENT'.padEnd(24)} ${'TOOLS'.padStart(5)}  ${'MODELS'.padEnd(24)} DOORS\n`);
      for (const agent of list) {
        ctx.io.stdout(`${terminalName(agent.name).padEnd(24)} ${String(agent.toolCount).padStart(5)}  ${(agent.models.join(', ') || 'none').padEnd(24)} ${doorWords(agent.doors)}\n`);
      }
    });
  agents
    .command('show <name>')
    .description('What the agent may call, where each grant comes from, the verdict for it, its models, sessions and recent calls')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      let view: AgentView;
      try {
        view = await (await contractFor(await connectedCore(ctx))).agents.show({ name });
      } catch (error) {
        if (isAppError(error) && error.code === 'NotFound') throw new CliExit(ExitCode.Usage, error.message);
        throw error;
      }
      if (options.json) return void ctx.io.stdout(`${jsonForTerminal(view)}\n`);
      const out = (line: string) => ctx.io.stdout(`${line}\n`);
      out(`Agent ${terminalName(view.name)}`);
      out(`  doors: ${doorWords(view.doors)}`);
      out(`  models: ${view.models.join(', ') || 'none (deny by default: tooldeck agents models NAME PATTERN…)'}`);
      if (view.dailyTokenBudget !== undefined) out(`  tokens today: ${view.tokensToday ?? 0} of ${view.dailyTokenBudget}`);
      out(`  tools (${view.tools.length}):`);
      if (view.tools.length === 0) out('    none: nothing is granted to this agent (deny by default)');
      for (const tool of view.tools) {
        out(`    ${terminalName(tool.name)}  ${tool.verdict}${tool.withheld ? `  (not offered: ${safeForTerminal(tool.withheld, 300)})` : ''}`);
        out(`      granted by ${safeForTerminal(grantedByWords(tool), 1000)}`);
      }
      out(`  sessions: ${view.sessions.length === 0 ? 'none open' : view.sessions.map((session) => `${session.id} (${session.era})`).join(', ')}`);
      out(`  recent calls: ${view.recentCalls.length === 0 ? 'none' : ''}`);
      for (const call of view.recentCalls.slice(0, 10)) out(`    ${new Date(call.startedAt).toISOString()}  ${(call.via ?? '').padEnd(9)} ${terminalName(`${call.sourceKind}:${call.sourceName}.${call.tool}`)}  ${call.status}`);
    });
  agents
    .command('models <name> [patterns...]')
    .description("Grant the agent exactly these <provider>/<model> patterns ('mock/*'); none: no model (deny by default)")
    .option('--daily-tokens <n>', 'tokens the agent may spend per UTC day through mediation (0: no budget)')
    .action(async (name: string, patterns: string[], options: { dailyTokens?: string }) => {
      let dailyTokens: number | null | undefined;
      if (options.dailyTokens !== undefined) {
        const n = Number(options.dailyTokens);
        if (!Number.isInteger(n) || n < 0) throw new CliExit(ExitCode.Usage, `--daily-tokens must be a whole number of tokens, not "${safeForTerminal(options.dailyTokens, 40)}".`);
        dailyTokens = n === 0 ? null : n;
      }
      try {
        const granted = await (await contractFor(await ctx.getCore())).agents.grantModels({ name, models: patterns, ...(dailyTokens !== undefined ? { dailyTokens } : {}) });
        ctx.io.stdout(granted.length === 0 ? `Agent ${terminalName(name)} may use no model.\n` : `Agent ${terminalName(name)} may use ${granted.join(', ')}.\n`);
      } catch (error) {
        if (isAppError(error) && error.code === 'InvalidInput') throw new CliExit(ExitCode.Usage, error.message);
        throw error;
      }
    });
}
