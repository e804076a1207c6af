import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { stringify } from 'yaml';
import { createStderrLogger } from '../../../main/platform/Logger';
import { applyToCluster } from '../../../main/resources/applyToCluster';
import { applyToWorkspace } from '../../../main/resources/applyToWorkspace';
import { currentWorkspaceDir } from '../../../main/resources/createLocalResources';
import { indexByIdentity, documentDiagnostics } from '../../../main/resources/duplicateDiagnostics';
import { parseResourceText, type LoadedDocument } from '../../../main/resources/parseResourceText';
import { Workspace } from '../../../main/resources/Workspace';
import { formatDiagnostic } from '../../../shared/resources/diagnostics';
import { MAX_WORKSPACE_FILE_BYTES } from '../../../shared/resources/workspace';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { connectKubeTarget } from '../connectKubeTarget';

export interface ApplyFlags {
  filename: string;
  target: 'local' | 'cluster';
  dryRun?: boolean;
  workspace?: string;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
}

/** `tooldeck validate`: every diagnostic printed; exit 1 on errors. */
export async function validate(ctx: CliContext, flags: { filename: string; defaults?: boolean }) {
  const { documents } = await readValidated(ctx, flags.filename, '');
  if (flags.defaults) {
    ctx.io.stdout(documents.map((doc) => stringify(doc.stored, { lineWidth: 0 })).join('---\n'));
    return;
  }
  ctx.io.stdout(`${flags.filename}: ${documents.length} valid: ${documents.map((doc) => `${doc.kind} ${doc.name}`).join(', ') || 'no objects'}\n`);
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
      for (const result of results) ctx.io.stdout(`${result.identity.kind}/${result.identity.name} ${result.action} in ${result.namespace}${suffix}\n`);
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
    for (const result of results) ctx.io.stdout(`${result.identity.kind}/${result.identity.name} ${result.action} (${result.file})${suffix}\n`);
    if (!flags.dryRun) ctx.io.stdout(`Workspace ${dir}: a running console reconciles the change as it sees it.\n`);
  } finally {
    workspace.close();
  }
}

/** Reads and validates a file; prints every diagnostic; exit 1 when any is an error. */
async function readValidated(ctx: CliContext, file: string, consequence: string): Promise<{ documents: LoadedDocument[]; text: string }> {
  const info = await stat(file).catch((error: Error) => {
    throw new CliExit(ExitCode.Failed, `Cannot read ${file}: ${error.message}`);
  });
  if (info.size > MAX_WORKSPACE_FILE_BYTES) {
    throw new CliExit(
      ExitCode.Failed,
      `${file} is ${(info.size / (1024 * 1024)).toFixed(1)} MB, over the ${MAX_WORKSPACE_FILE_BYTES / (1024 * 1024)} MB a resource file may have; split it into smaller files.`,
    );
  }
  const text = await readFile(file, 'utf8');
  const documents = parseResourceText(text, { fileName: basename(file) });
  const index = indexByIdentity(documents.map((doc) => ({ ...doc, file })));
  const diagnostics = documents.flatMap((doc) => documentDiagnostics(file, doc, index));
  for (const diagnostic of diagnostics) ctx.io.stderr(`${formatDiagnostic(diagnostic, file)}\n`);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  if (errors > 0) throw new CliExit(ExitCode.Failed, `${file}: ${errors} error${errors === 1 ? '' : 's'}${consequence}.`);
  return { documents, text };
}
