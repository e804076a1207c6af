import type { Command } from 'commander';
import type { LintFinding, ToolDefinition } from '../../../shared/lock';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { addTargetOptions, type TargetOptions } from '../targetOptions';
import { jsonForTerminal, safeForTerminal, terminalName } from '../terminalText';
import { openTarget } from './mcp';

const SEVERITY_LABEL = { high: 'HIGH  ', medium: 'medium', low: 'low   ' } as const;

export function registerLint(program: Command, ctx: CliContext) {
  addTargetOptions(
    program
      .command('lint [source]')
      .description('Lint tool descriptions and schemas for poisoning: hidden characters, instructions to the model, requests for secrets, side channels (exit 1 on any high finding)'),
  )
    .option('--json', 'print {source, tools, findings} as JSON')
    .action(async (ref: string | undefined, flags: TargetOptions & { json?: boolean }) => {
      const core = await ctx.getCore();
      const [{ lintTools, hasHighFinding }, { toolDefinition, entryHashes }] = await Promise.all([import('../../../main/lock/lint/lintTools'), import('../../../main/lock/definitionHash')]);
      // Linting is an inspection: it must not approve a source on first use by connecting to it.
      core.lock.suspendTrustOnFirstUse();
      const { connectSources, resolveSource } = await import('../../../main/lock/connectSources');
      const resolved = ref && !flags.stdio && !flags.url ? await resolveSource(core, ref) : undefined;
      let source: string;
      let tools: ToolDefinition[];
      if (flags.stdio || flags.url || !resolved?.source || resolved.source.kind === 'mcp') {
        // A saved MCP server or a one-off target: its live tools/list.
        if (ref && resolved && !resolved.source && ref.includes(':')) throw new CliExit(ExitCode.Usage, `No source ${safeForTerminal(ref)}${resolved.candidates.length ? `; sources: ${resolved.candidates.map((id) => terminalName(id)).join(', ')}` : ''}`);
        const target = await openTarget(ctx, core, resolved?.source?.name ?? ref, flags);
        try {
          source = `mcp:${target.server}`;
          tools = target.connection.tools.map((tool) => toolDefinition(tool));
        } finally {
          await target.release();
        }
      } else {
        // Any other source (grpc:, a2a:, http:): its registry entries.
        source = `${resolved.source.kind}:${resolved.source.name}`;
        const [outcome] = await connectSources(core, [source]);
        if (outcome && !outcome.ok) throw new CliExit(outcome.cannotConnect ? ExitCode.CannotConnect : ExitCode.Failed, `${terminalName(source)}: ${terminalName(outcome.error ?? '', 400)}`);
        tools = core.catalog.list({ source }).map((entry) => entryHashes(entry).definition);
      }
      // Other sources' names: a description that names one may be steering the model toward it.
      const ownNames = new Set(tools.map((tool) => tool.name));
      const { savedSourceIds } = await import('../../../main/registry/ToolSourceKind');
      const otherNames = (await savedSourceIds(core.sourceKinds, { disabled: true }))
        .map((id) => id.slice(id.indexOf(':') + 1))
        .filter((name) => `mcp:${name}` !== source && !source.endsWith(`:${name}`) && !ownNames.has(name));
      const findings = lintTools(tools, { otherNames });
      if (flags.json) ctx.io.stdout(`${jsonForTerminal({ source, tools: tools.length, findings })}\n`);
      else printFindings(ctx, source, tools.length, findings);
      if (hasHighFinding(findings)) throw new CliExit(ExitCode.Failed, flags.json ? '' : `${terminalName(source)}: ${findings.filter((finding) => finding.severity === 'high').length} high finding(s)`);
    });
}

function printFindings(ctx: CliContext, source: string, toolCount: number, findings: readonly LintFinding[]) {
  const count = (severity: LintFinding['severity']) => findings.filter((finding) => finding.severity === severity).length;
  for (const finding of findings) {
    // A finding quotes the server's text: what it flags is spelled out, never acted on by the terminal.
    ctx.io.stdout(`${SEVERITY_LABEL[finding.severity]}  ${finding.rule.padEnd(24)} ${terminalName(finding.tool)}  ${terminalName(finding.message, 600)}\n`);
    if (finding.excerpt) ctx.io.stdout(`        ${terminalName(finding.excerpt.replace(/\n/g, '⏎'), 600)}\n`);
  }
  ctx.io.stdout(`${terminalName(source)}: ${toolCount} tool(s), ${findings.length ? `${count('high')} high, ${count('medium')} medium, ${count('low')} low` : 'no findings'}\n`);
}
