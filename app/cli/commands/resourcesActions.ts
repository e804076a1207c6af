import { basename } from 'node:path';
import { stringify } from 'yaml';
import { createStderrLogger } from '../../../main/platform/Logger';
import { applyToCluster } from '../../../main/kube/applyToCluster';
import { applyToWorkspace } from '../../../main/resources/applyToWorkspace';
import { currentWorkspaceDir } from '../../../main/resources/createLocalResources';
import { indexByIdentity, documentDiagnostics } from '../../../main/resources/duplicateDiagnostics';
import { parseResourceText, type LoadedDocument } from '../../../main/resources/parseResourceText';
import { Workspace } from '../../../main/resources/Workspace';
import { formatDiagnostic, type Diagnostic } from '../../../shared/resources/diagnostics';
import { isAppError, launchConfirmationRequired } from '../../../shared/errors';
import { INPUT_LIMITS } from '../../../shared/inputLimits';
import { readBoundedText } from '../../../main/platform/readBounded';
import type { McpServerResourceView } from '../../../shared/resources/statuses';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { excerpt, safeForTerminal } from '../terminalText';
import { connectKubeTarget } from '../connectKubeTarget';

export interface ApplyFlags {
  filename: string;
  target: 'local' | 'cluster';
  dryRun?: boolean;
  workspace?: string;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  /** local: confirm the folder's stdio command lines not confirmed yet instead of asking. */
  yes?: boolean;
}

/** `tooldeck validate`: every diagnostic printed; exit 1 on errors. */
export async function validate(ctx: CliContext, flags: { filename: string; defaults?: boolean }) {
  const { documents } = await readValidated(ctx, flags.filename, '');
  if (flags.defaults) {
    ctx.io.stdout(documents.map((doc) => stringify(doc.stored, { lineWidth: 0 })).join('---\n'));
    return;
  }
  ctx.io.stdout(`${safeForTerminal(flags.filename)}: ${documents.length} valid: ${documents.map((doc) => safeForTerminal(`${doc.kind} ${doc.name}`, 200)).join(', ') || 'no objects'}\n`);
}

/** `tooldeck apply`: validated, then into the workspace or to a cluster. */
export async function apply(ctx: CliContext, flags: ApplyFlags) {
  const { documents, text } = await readValidated(ctx, flags.filename, '; nothing was applied');
  const suffix = flags.dryRun ? ' (dry run)' : '';
  if (flags.target === 'cluster') {
    const connection = await connectKubeTarget(flags);
    try {
      const results = await applyToCluster(
        connection,
        documents.map((doc) => ({
          identity: doc.identity!,
          stored: doc.stored!,
        })),
        { dryRun: flags.dryRun },
      );
      for (const result of results) ctx.io.stdout(`${safeForTerminal(`${result.identity.kind}/${result.identity.name}`, 200)} ${result.action} in ${result.namespace}${suffix}\n`);
    } finally {
      connection.close();
    }
    return;
  }
  const dir = flags.workspace ?? (await currentWorkspaceDir(ctx.dataDir));
  const workspace = new Workspace({
    dir,
    logger: createStderrLogger('error'),
    watch: false,
  });
  try {
    await workspace.load();
    const results = await applyToWorkspace(workspace, flags.filename, text, {
      dryRun: flags.dryRun,
    });
    for (const result of results) ctx.io.stdout(`${safeForTerminal(`${result.identity.kind}/${result.identity.name}`, 200)} ${result.action} (${safeForTerminal(result.file)})${suffix}\n`);
  } finally {
    workspace.close();
  }
  if (flags.dryRun) return;
  // Reconciled once here, as the console would, so the outcome is known now rather than later.
  const servers = documents.flatMap((doc) => (doc.identity?.kind === 'McpServer' ? [doc.identity.name] : []));
  if (servers.length === 0) return;
  ctx.useWorkspace(dir);
  if (flags.yes) ctx.confirmLaunchesWithoutAsking();
  const core = await ctx.getCore();
  reportReconcile(ctx, await core.resources.reconciler.reconcileOnce(servers));
}

/**
 * `tooldeck reconcile --once`: every McpServer of the workspace, reconciled now; exit 1 unless all are
 * Ready, 2 when a command line was not confirmed (no terminal to ask, or the answer was no).
 */
export async function reconcileWorkspace(ctx: CliContext, flags: { once?: boolean; workspace?: string; yes?: boolean }) {
  if (!flags.once) throw new CliExit(ExitCode.Usage, 'Add --once: this command reconciles the workspace once and reports; the console (tooldeck serve, the desktop app) reconciles continuously.');
  if (flags.workspace) ctx.useWorkspace(flags.workspace);
  if (flags.yes) ctx.confirmLaunchesWithoutAsking();
  const core = await ctx.getCore();
  const statuses = await core.resources.reconciler.reconcileOnce();
  if (statuses.length === 0) return ctx.io.stdout(`Workspace ${safeForTerminal(core.resources.workspace.dir)}: no McpServer resources.\n`);
  reportReconcile(ctx, statuses);
}

/** One line per McpServer: phase, tools discovered and Tools generated, or the error; exit 1 unless all are Ready. */
function reportReconcile(ctx: CliContext, statuses: McpServerResourceView[]) {
  for (const { name, source, status } of statuses) {
    const detail =
      status.phase === 'Ready'
        ? `${status.discoveredTools.length} tools discovered, ${status.generatedTools.length} Tools generated`
        : (status.lastError ?? 'not reconciled');
    ctx.io.stdout(`McpServer/${safeForTerminal(name, 200)} (${safeForTerminal(source.file)}): ${status.phase} — ${safeForTerminal(detail, 400)}\n`);
  }
  const unconfirmed = statuses.flatMap((view) => (view.status.unconfirmedLaunch ? [view.status.unconfirmedLaunch] : []));
  if (unconfirmed.length > 0) throw launchConfirmationRequired(unconfirmed);
  const failed = statuses.filter((view) => view.status.phase !== 'Ready');
  if (failed.length > 0) throw new CliExit(ExitCode.Failed, `${failed.map((view) => safeForTerminal(view.name, 200)).join(', ')} did not become Ready.`);
}

/** Reads and validates a file; prints every diagnostic; exit 1 when any is an error. */
async function readValidated(ctx: CliContext, file: string, consequence: string): Promise<{ documents: LoadedDocument[]; text: string }> {
  // Counted as read: `-f /dev/stdin`, a FIFO or `/dev/zero` stop at the limit like a large file.
  const text = await readBoundedText(file, INPUT_LIMITS.resourceFile).catch((error: Error) => {
    throw new CliExit(ExitCode.Failed, isAppError(error) ? error.message : `Cannot read ${safeForTerminal(file)}: ${error.message}`);
  });
  const documents = parseResourceText(text, { fileName: basename(file) });
  const index = indexByIdentity(documents.map((doc) => ({ ...doc, file })));
  const diagnostics = documents.flatMap((doc) => documentDiagnostics(file, doc, index));
  printDiagnostics(ctx, diagnostics, file);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  if (errors > 0) throw new CliExit(ExitCode.Failed, `${safeForTerminal(file)}: ${errors} error${errors === 1 ? '' : 's'}${consequence}.`);
  return { documents, text };
}

/** At most this many diagnostics are printed: a file of garbage would otherwise fill the terminal. */
const MAX_PRINTED_DIAGNOSTICS = 50;
/** Diagnostics quote the file; a quote is cut to this many characters. */
const MAX_DIAGNOSTIC_CHARS = 300;

function printDiagnostics(ctx: CliContext, diagnostics: Diagnostic[], file: string) {
  for (const diagnostic of diagnostics.slice(0, MAX_PRINTED_DIAGNOSTICS)) {
    ctx.io.stderr(`${formatDiagnostic({ ...diagnostic, message: excerpt(diagnostic.message, MAX_DIAGNOSTIC_CHARS) }, safeForTerminal(file, MAX_DIAGNOSTIC_CHARS))}\n`);
  }
  const more = diagnostics.length - MAX_PRINTED_DIAGNOSTICS;
  if (more > 0) ctx.io.stderr(`… and ${more} more\n`);
}
