import type { Command } from 'commander';
import type { ToolApproval } from '../../../shared/approvals';
import { isAppError } from '../../../shared/errors';
import { ApprovalBook, type ApprovalVerdict } from '../../../main/approvals/ApprovalBook';
import type { ApprovalStore } from '../../../main/approvals/ApprovalHolder';
import { operatorName } from '../../../main/approvals/operatorName';
import { DEFAULT_OPERATOR_NAMESPACE } from '../../../main/kube/operator/operatorManifests';
import { connectKubeTarget } from '../connectKubeTarget';
import type { CliContext } from '../CliContext';
import { CliExit, ExitCode } from '../CliContext';
import { jsonForTerminal, safeForTerminal, terminalName } from '../terminalText';

/**
 * The approvals of the data dir, read and decided directly: no services are started, so the
 * command answers at once while the gateway (another process on the same data dir) holds the calls.
 */
interface ClusterFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  inCluster?: boolean;
}

const inCluster = (flags: ClusterFlags) => flags.kubeconfig !== undefined || flags.context !== undefined || flags.namespace !== undefined || flags.inCluster === true;

/**
 * Where the approvals are: the data dir's, or with --kubeconfig/--namespace the ToolApproval
 * objects of a cluster namespace (the gateway's, `tooldeck-system` unless told), and who decides
 * there: the user the API server authenticates, never a name given on the command line.
 */
async function openStore(ctx: CliContext, flags: ClusterFlags): Promise<{ store: ApprovalStore; close(): Promise<void> }> {
  if (!inCluster(flags)) {
    const book = new ApprovalBook({ dataDir: ctx.dataDir, watch: false });
    return { store: book, close: () => book.close() };
  }
  const connection = await connectKubeTarget(flags);
  try {
    const { ClusterApprovals } = await import('../../../main/kube/ClusterApprovals');
    // decided_by is the user the API server authenticates: the store records it on every decision.
    const store = await ClusterApprovals.open({ connection, namespace: flags.namespace ?? DEFAULT_OPERATOR_NAMESPACE, watch: false });
    return {
      store,
      close: async () => {
        await store.close();
        connection.close();
      },
    };
  } catch (error) {
    connection.close();
    if (isAppError(error) && (error.code === 'NotFound' || error.code === 'Unauthorized')) throw new CliExit(ExitCode.Failed, error.message);
    throw error;
  }
}

function withCluster(command: Command): Command {
  return command
    .option('--kubeconfig <file>', "a cluster's ToolApproval objects instead of the data dir's (default namespace tooldeck-system)")
    .option('--context <name>', 'kubeconfig context (default: the current one)')
    .option('-n, --namespace <name>', 'the namespace of the gateway whose approvals these are')
    .option('--in-cluster', "inside a pod: the cluster's ToolApprovals, with the pod's ServiceAccount");
}

/** `9m05s`, `42s`: how long a Pending approval has left. */
function timeLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

function stateText(approval: ToolApproval, now: number): string {
  const { status } = approval;
  if (status.phase === 'Pending') return `expires in ${timeLeft(Date.parse(status.expires_at) - now)}`;
  if (status.phase === 'Expired') return `expired ${status.expires_at}`;
  return `${status.decided_by ? `by ${safeForTerminal(status.decided_by, 60)} ` : ''}${status.decided_at ?? ''}${status.comment ? `: ${safeForTerminal(status.comment, 80)}` : ''}`;
}

function table(approvals: ToolApproval[], now: number): string {
  const rows = approvals.map((approval) => [
    approval.metadata.name,
    approval.status.phase,
    terminalName(approval.spec.agent, 40),
    terminalName(approval.spec.tool, 60),
    safeForTerminal(JSON.stringify(approval.spec.input), 60),
    stateText(approval, now),
  ]);
  const header = ['NAME', 'PHASE', 'AGENT', 'TOOL', 'ARGUMENTS', 'STATE'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

async function decide(ctx: CliContext, name: string, verdict: ApprovalVerdict, options: ClusterFlags & { comment?: string; by?: string; json?: boolean }) {
  if (inCluster(options) && options.by !== undefined) throw new CliExit(ExitCode.Usage, '--by is for the data dir; in a cluster decided_by is the user the API server authenticates');
  const { store, close } = await openStore(ctx, options);
  try {
    const approval = await store.decide(name, verdict, options.by ?? operatorName(), options.comment);
    if (options.json) return ctx.io.stdout(`${jsonForTerminal(approval)}\n`);
    ctx.io.stdout(`${verdict === 'approve' ? 'Approved' : 'Denied'} ${approval.metadata.name}: ${terminalName(approval.spec.tool, 100)} for agent ${terminalName(approval.spec.agent, 100)}${verdict === 'approve' ? ' may run once' : ' will not run'}.\n`);
  } catch (error) {
    // A decision that came too late, or a name nobody held: one sentence, exit 1.
    if (isAppError(error) && (error.code === 'AlreadyExists' || error.code === 'NotFound' || error.code === 'Unauthorized')) throw new CliExit(ExitCode.Failed, error.message);
    throw error;
  } finally {
    await close();
  }
}

export function registerApprovals(program: Command, ctx: CliContext) {
  const approvals = program.command('approvals').description("Agents' calls held for a person's approval (Orloj ToolApprovals): list, approve, deny");

  withCluster(approvals.command('list'))
    .description('Held calls (Pending first) and decided ones')
    .option('--json', 'print the approvals as JSON (Orloj ToolApproval objects)')
    .action(async (options: ClusterFlags & { json?: boolean }) => {
      const { store, close } = await openStore(ctx, options);
      try {
        const all = await store.list();
        if (options.json) return ctx.io.stdout(`${jsonForTerminal(all)}\n`);
        if (all.length === 0) return ctx.io.stdout('No approvals.\n');
        ctx.io.stdout(`${table(all, Date.now())}\n`);
      } finally {
        await close();
      }
    });

  for (const verdict of ['approve', 'deny'] as const) {
    withCluster(approvals.command(`${verdict} <name>`))
      .description(verdict === 'approve' ? 'Let the held call run, once' : 'Refuse the held call: the agent gets an error saying so')
      .option('--comment <text>', 'why (kept with the approval and, for a denial, told to the agent)')
      .option('--by <name>', 'who decides, as decided_by records it (default: the account name; in a cluster, always the authenticated user)')
      .option('--json', 'print the decided approval as JSON')
      .action((name: string, options: ClusterFlags & { comment?: string; by?: string; json?: boolean }) => decide(ctx, name, verdict, options));
  }
}
