import { Argument, type Command } from 'commander';
import type { Core } from '../../../main/core';
import type { ConnectOutcome } from '../../../main/lock/connectSources';
import { NewSourcesPolicy, RevisionRef, type DefinitionDiff, type SourceReview, type ToolReview } from '../../../shared/lock';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { contractFor } from '../contract';
import { jsonForTerminal, safeForTerminal, terminalName } from '../terminalText';
import { formatDiff, reviewLine } from './lockOutput';

/** Builds the core for a lock command: a check or a decision must never trust anything on first use by itself. */
async function lockCore(ctx: CliContext): Promise<Core> {
  const core = await ctx.getCore();
  core.lock.suspendTrustOnFirstUse();
  return core;
}

async function connectAll(core: Core, ids?: readonly string[]): Promise<ConnectOutcome[]> {
  const { connectSources, trackedSourceIds } = await import('../../../main/lock/connectSources');
  return connectSources(core, ids ?? (await trackedSourceIds(core)));
}

/** A source id from `mcp:name` or a bare name; a usage error naming the candidates otherwise. */
async function sourceArg(core: Core, ref: string): Promise<string> {
  const { resolveSource } = await import('../../../main/lock/connectSources');
  const { source, candidates } = await resolveSource(core, ref);
  if (!source) {
    throw new CliExit(
      ExitCode.Usage,
      candidates.length && !ref.includes(':') && candidates.every((id) => id.endsWith(`:${ref}`))
        ? `${safeForTerminal(ref)} is ambiguous: ${names(candidates)}`
        : `No source ${safeForTerminal(ref)}${candidates.length ? `; sources: ${names(candidates)}` : ' (add a server, agent or service first)'}`,
    );
  }
  return `${source.kind}:${source.name}`;
}

/** Connects one source for a decision or a diff; cannot connect is exit 3. */
async function connectOne(core: Core, id: string): Promise<void> {
  const [outcome] = await connectAll(core, [id]);
  if (outcome && !outcome.ok) throw new CliExit(outcome.cannotConnect ? ExitCode.CannotConnect : ExitCode.Failed, `${terminalName(id)}: ${terminalName(outcome.error ?? '', 400)}`);
}

function parseRef(value: string): RevisionRef {
  const parsed = RevisionRef.safeParse(/^\d+$/.test(value) ? Number(value) : value);
  if (!parsed.success) throw new CliExit(ExitCode.Usage, `a revision is approved, current or a revision number, not "${value}"`);
  return parsed.data;
}

function lockProblem(core: Core): string | undefined {
  const status = core.lock.status();
  return status.error ? `${safeForTerminal(status.file)} cannot be used: ${terminalName(status.error, 400)}` : undefined;
}

export function registerLock(program: Command, ctx: CliContext) {
  const lock = program.command('lock').description('tooldeck.lock: the approved definition of every tool, per source; review, approve, verify');

  lock
    .command('status')
    .description('Every source against the lock: approved, new, changed, renamed, rejected and removed tools')
    .option('--json', 'print the status as JSON')
    .action(async (flags: { json?: boolean }) => {
      const core = await lockCore(ctx);
      const outcomes = await connectAll(core);
      const status = await (await contractFor(core)).lock.status();
      const unreachable = outcomes.filter((outcome) => !outcome.ok).map((outcome) => ({ source: outcome.id, error: outcome.error ?? '' }));
      if (flags.json) return ctx.io.stdout(`${jsonForTerminal({ ...status, unreachable })}\n`);
      ctx.io.stdout(`${safeForTerminal(status.file)}${status.exists ? '' : ' (not written yet)'} · new sources: ${status.newSources}\n`);
      if (status.error) ctx.io.stdout(`  cannot be used: ${terminalName(status.error, 400)} — every tool is held until it is fixed\n`);
      for (const source of status.sources) printSource(ctx, source, unreachable.find((item) => item.source === source.source)?.error);
      for (const item of unreachable.filter((entry) => !status.sources.some((source) => source.source === entry.source))) ctx.io.stdout(`\n${terminalName(item.source)}  not checked: ${terminalName(item.error, 400)}\n`);
    });

  lock
    .command('diff <source>')
    .description('What changed in a source’s tool definitions: from the approved ones to the current ones, or between two revisions')
    .option('--from <revision>', 'approved, current or a revision number', 'approved')
    .option('--to <revision>', 'approved, current or a revision number', 'current')
    .option('--json', 'print the diff as JSON')
    .action(async (ref: string, flags: { from: string; to: string; json?: boolean }) => {
      const from = parseRef(flags.from);
      const to = parseRef(flags.to);
      const core = await lockCore(ctx);
      const id = await sourceArg(core, ref);
      if (from === 'current' || to === 'current') await connectOne(core, id);
      const diff: DefinitionDiff = await (await contractFor(core)).lock.compare({ source: id, from, to });
      if (flags.json) return ctx.io.stdout(`${jsonForTerminal(diff)}\n`);
      ctx.io.stdout(formatDiff(diff));
    });

  lock
    .command('history <source>')
    .description('The revisions of a source’s tool definitions, newest first')
    .option('--json', 'print the revisions as JSON')
    .action(async (ref: string, flags: { json?: boolean }) => {
      const core = await lockCore(ctx);
      const id = await sourceArg(core, ref);
      const revisions = await (await contractFor(core)).lock.history({ source: id });
      if (flags.json) return ctx.io.stdout(`${jsonForTerminal(revisions)}\n`);
      if (revisions.length === 0) return ctx.io.stdout(`${terminalName(id)} has no revisions yet: connect it once.\n`);
      for (const revision of revisions) {
        const change = [revision.added && `+${revision.added}`, revision.removed && `-${revision.removed}`, revision.renamed && `${revision.renamed} renamed`, revision.changed && `${revision.changed} changed`].filter(Boolean).join(', ');
        ctx.io.stdout(
          `#${String(revision.id).padEnd(5)} ${new Date(revision.seenAt).toISOString().replace('T', ' ').slice(0, 19)}  ${String(revision.toolCount).padStart(3)} tools  ${change || 'no change'}${revision.sameAs ? `  (same as #${revision.sameAs})` : ''}${revision.approved ? '  approved' : ''}\n`,
        );
      }
    });

  for (const decision of ['approve', 'reject'] as const) {
    lock
      .command(`${decision} <source> [tools...]`)
      .description(decision === 'approve' ? 'Approve the current definitions of a source (every tool, or the named ones) into tooldeck.lock' : 'Reject the current definitions of the named tools (every held tool when none is named): they are denied until approved')
      .action(async (ref: string, tools: string[]) => {
        const core = await lockCore(ctx);
        const id = await sourceArg(core, ref);
        const problem = lockProblem(core);
        if (problem) throw new CliExit(ExitCode.Failed, `${problem}; fix or delete it first. Nothing was written.`);
        await connectOne(core, id);
        const before = core.lock.review(id);
        const known = new Set(before.tools.map((tool) => tool.tool));
        const unknown = tools.filter((tool) => !known.has(tool));
        if (unknown.length) throw new CliExit(ExitCode.Usage, `${terminalName(id)} has no tool ${unknown.map((tool) => safeForTerminal(tool)).join(', ')}; it has ${names([...known]) || 'none'}`);
        if (decision === 'reject' && tools.length === 0 && before.held === 0) return ctx.io.stdout(`${terminalName(id)}: nothing is held, nothing to reject.\n`);
        const contract = await contractFor(core);
        const after = decision === 'approve' ? await contract.lock.approve({ source: id, tools }) : await contract.lock.reject({ source: id, tools });
        const named = tools.length ? tools : decision === 'approve' ? after.tools.map((tool) => tool.tool) : before.tools.filter((tool) => tool.state !== 'approved').map((tool) => tool.tool);
        ctx.io.stdout(`${decision === 'approve' ? 'Approved' : 'Rejected'} ${named.length} tool(s) of ${terminalName(id)}: ${names(named)}\n`);
        if (after.held) ctx.io.stdout(`Still held: ${after.tools.filter((tool) => tool.state !== 'approved').map((tool) => `${terminalName(tool.tool)} (${tool.state})`).join(', ')}\n`);
        ctx.io.stdout(`Written to ${safeForTerminal(core.lock.file)}\n`);
      });
  }

  lock
    .command('verify')
    .description('For CI: exit 0 when every source matches tooldeck.lock, 1 naming each tool that drifted and how')
    .option('--json', 'print the result as JSON')
    .action(async (flags: { json?: boolean }) => {
      const core = await lockCore(ctx);
      const outcomes = await connectAll(core);
      const status = await (await contractFor(core)).lock.status();
      const drift = status.sources.flatMap((source) => driftOf(source, outcomes.find((outcome) => outcome.id === source.source)));
      const missing = outcomes.filter((outcome) => outcome.missing).map((outcome) => ({ source: outcome.id, tool: '', how: `is in tooldeck.lock but not configured here: ${outcome.error}` }));
      const unreachable = outcomes.filter((outcome) => !outcome.ok && !outcome.missing).map((outcome) => ({ source: outcome.id, error: outcome.error ?? '' }));
      const failures = [...(status.error ? [{ source: '', tool: '', how: `${status.file} cannot be used: ${status.error}` }] : []), ...drift, ...missing];
      if (flags.json) ctx.io.stdout(`${jsonForTerminal({ file: status.file, ok: failures.length === 0 && unreachable.length === 0, drift: failures, unreachable })}\n`);
      else {
        // One line per failure, whatever the lock's keys and the servers' names hold: a CI log shows what happened.
        for (const item of failures) ctx.io.stdout(`${terminalName(item.source)}${item.tool ? ` ${terminalName(item.tool)}` : ''}: ${terminalName(item.how, 800)}\n`);
        for (const item of unreachable) ctx.io.stdout(`${terminalName(item.source)}: not verified, cannot read its definitions: ${terminalName(item.error, 400)}\n`);
        if (failures.length === 0 && unreachable.length === 0) ctx.io.stdout(`Every tool of ${status.sources.length} source(s) matches ${safeForTerminal(status.file)}\n`);
      }
      if (failures.length) throw new CliExit(ExitCode.Failed, flags.json ? '' : `${failures.length} tool definition(s) differ from ${safeForTerminal(status.file)}: review them with tooldeck lock diff <source>, then approve or reject`);
      if (unreachable.length) throw new CliExit(ExitCode.CannotConnect, flags.json ? '' : `${unreachable.length} source(s) could not be verified`);
    });

  lock
    .command('new-sources')
    .description('What happens to a source with no entry in tooldeck.lock: its first definitions are trusted (default), or every tool is held')
    .addArgument(new Argument('<policy>').choices(NewSourcesPolicy.options))
    .action(async (policy: NewSourcesPolicy) => {
      const core = await lockCore(ctx);
      const problem = lockProblem(core);
      if (problem) throw new CliExit(ExitCode.Failed, `${problem}; fix or delete it first. Nothing was written.`);
      await (await contractFor(core)).lock.setNewSources({ policy });
      ctx.io.stdout(`New sources: ${policy} (${safeForTerminal(core.lock.file)})\n`);
    });
}

/**
 * Source or tool names, listed on one line. Like every lock key, tool name and error quoting them,
 * they come from tooldeck.lock and the servers and are printed through terminalName: a hostile key
 * can neither act on the terminal nor break onto a line of its own in a CI log.
 */
function names(list: readonly string[]): string {
  return list.map((name) => terminalName(name)).join(', ');
}

function printSource(ctx: CliContext, source: SourceReview, unreachable: string | undefined) {
  const state = !source.locked ? 'not in the lock' : source.held ? `${source.held} held` : 'all approved';
  ctx.io.stdout(`\n${terminalName(source.source)}  ${source.tools.length} tools · ${state}${source.live ? '' : unreachable ? ` · not connected: ${terminalName(unreachable, 400)}` : ' · from its last revision'}\n`);
  for (const tool of source.tools) if (tool.state !== 'approved') ctx.io.stdout(`  ${reviewLine(tool)}\n`);
  for (const removed of source.removed) if (!removed.renamedTo) ctx.io.stdout(`  removed   ${terminalName(removed.tool)}\n`);
  if (source.card?.undeclared.length) ctx.io.stdout(`  its Server Card never declared: ${source.card.undeclared.map((name) => terminalName(name)).join(', ')}\n`);
  if (source.card?.missing.length) ctx.io.stdout(`  its Server Card declared, not listed: ${source.card.missing.map((name) => terminalName(name)).join(', ')}\n`);
}

/** Each way a source differs from the lock, one line per tool. */
function driftOf(source: SourceReview, outcome: ConnectOutcome | undefined): Array<{ source: string; tool: string; how: string }> {
  // A source not connected now is reported as unreachable; its last revision is not evidence of drift.
  if (!source.live || (outcome && !outcome.ok)) return [];
  const lines = source.tools.filter((tool) => tool.state !== 'approved').map((tool) => ({ source: source.source, tool: tool.tool, how: howChanged(tool, source) }));
  for (const removed of source.removed) if (!removed.renamedTo) lines.push({ source: source.source, tool: removed.tool, how: 'removed (approved, no longer listed)' });
  return lines;
}

function howChanged(tool: ToolReview, source: SourceReview): string {
  switch (tool.state) {
    case 'new':
      return source.locked ? 'new (not in the lock)' : 'new (the source is not in the lock)';
    case 'renamed':
      return `renamed from ${tool.previousName} (same definition)`;
    case 'rejected':
      return 'has a rejected definition';
    case 'changed': {
      const fields = tool.changes.filter((field) => field !== 'version');
      const parts = [fields.length ? `changed (${fields.join(', ')})` : tool.changes.includes('version') ? '' : 'changed (definition hash differs)'];
      if (tool.changes.includes('version')) parts.push(`version ${tool.lockedVersion} → ${tool.version}`);
      return parts.filter(Boolean).join('; ');
    }
    default:
      return tool.state;
  }
}
