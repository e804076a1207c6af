import { writeFileAtomic } from '../../../main/platform/atomicWrite';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { CompileFormat } from '../../../shared/agentTools';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { contractFor } from '../contract';
import { excerpt, safeForTerminal, terminalName } from '../terminalText';

/** `tooldeck compile --agent`: an agent's Clawdapus tools.json or Language Operator config.yaml from the workspace's pod files. */
export function registerCompile(program: Command, ctx: CliContext) {
  program
    .command('compile')
    .description("Compile an agent's tool access from the workspace's claw-pod.yml: tools.json (default) or config.yaml")
    .requiredOption('--agent <name>', 'the agent: <agent>, or <pod>/<agent> when several pods have one of that name')
    .addOption(new Option('--format <format>', 'tools.json: the manifest with schemas and execution metadata; config.yaml: MCP endpoints').choices(['tools.json', 'config.yaml']).default('tools.json'))
    .option('--out <file>', 'write to this file instead of standard output')
    .action(async (flags: { agent: string; format: CompileFormat; out?: string }) => {
      const core = await ctx.getCore();
      // A server never discovered (a workspace McpServer on a fresh data dir) is connected once, as
      // the console would, so its tools can be granted.
      for (const server of core.servers.list()) {
        if (await core.mcp.toolCache.read(server.name)) continue;
        await core.servers.connect(server.name).then(
          () => core.mcp.disconnect(server.name),
          (error: Error) => ctx.io.stderr(`${safeForTerminal(server.name, 100)}: not discovered: ${excerpt(error.message, 400)}\n`),
        );
      }
      const compiled = await (await contractFor(core)).agentTools.compile({ agent: flags.agent, format: flags.format });
      // Held definitions are left out on purpose: say so, on stderr, so the file on stdout stays clean.
      for (const item of compiled.withheld) ctx.io.stderr(`left out ${terminalName(item.name)}: ${safeForTerminal(item.reason, 400)}\n`);
      // The pod file is one of three places that grant: what the gateway serves beside it is named, with where it comes from.
      const agentName = compiled.ref.slice(compiled.ref.indexOf('/') + 1);
      const served = await (await contractFor(core)).agents.show({ name: agentName }).catch(() => undefined);
      for (const tool of served?.tools.filter((item) => !item.grantedBy.some((origin) => origin.kind === 'ClawPod')) ?? []) {
        const origins = tool.grantedBy.map((origin) => `${origin.kind}${origin.file ? ` ${origin.file}` : ''}`).join(', ');
        ctx.io.stderr(`also served to ${terminalName(agentName)} by the gateway: ${terminalName(tool.name)} (granted by ${safeForTerminal(origins, 400)}, not by the pod file)\n`);
      }
      if (!flags.out) return ctx.io.stdout(compiled.text);
      const path = resolve(flags.out);
      await writeFileAtomic(path, compiled.text).catch((error: NodeJS.ErrnoException) => {
        throw new CliExit(ExitCode.Failed, `Cannot write ${path}: ${error.code ?? error.message}`);
      });
      const what = flags.format === 'tools.json' ? `${compiled.toolCount} tool(s)` : `${compiled.toolCount} MCP server(s)`;
      ctx.io.stderr(`${safeForTerminal(compiled.ref, 200)}: ${what} written to ${safeForTerminal(path)}\n`);
    });
}
