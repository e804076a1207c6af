import type { Command } from 'commander';
import { createStderrLogger } from '../../../main/platform/Logger';
import type { KubeInventory } from '../../../shared/kube';
import { APP_VERSION } from '../../common/appVersion';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { connectKubeTarget } from '../connectKubeTarget';

interface TargetFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
}

function withTarget(command: Command): Command {
  return command
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: the current one)')
    .option('-n, --namespace <name>', 'only this namespace (default: all namespaces)');
}

// The Kubernetes client is loaded only by kube commands, keeping every other command's start fast.
const loadKubeModules = async () => {
  const [{ installCrds }, { LanguageToolReconciler }, { readInventory }] = await Promise.all([
    import('../../../main/kube/crds'),
    import('../../../main/kube/LanguageToolReconciler'),
    import('../../../main/kube/readInventory'),
  ]);
  return { installCrds, LanguageToolReconciler, readInventory };
};

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new CliExit(ExitCode.Usage, `--timeout must be a positive number of seconds, not ${value}`);
  return seconds;
}

export function registerKube(program: Command, ctx: CliContext) {
  const kube = program.command('kube').description('Reconcile LanguageTools and LanguageAgents in a Kubernetes cluster');

  withTarget(kube.command('reconcile'))
    .description('Install the CRDs and reconcile tools into Deployments, Services and agent configs')
    .option('--once', 'exit once everything has converged (steady state)')
    .option('--timeout <seconds>', 'with --once: give up after this long (exit 1)', '300')
    .action(async (flags: TargetFlags & { once?: boolean; timeout: string }) => {
      const timeoutSeconds = parseSeconds(flags.timeout);
      const connection = await connectKubeTarget(flags);
      const scope = flags.namespace ? `namespace ${flags.namespace}` : 'all namespaces';
      const { LanguageToolReconciler, installCrds, readInventory } = await loadKubeModules();
      const reconciler = new LanguageToolReconciler({
        connection,
        logger: createStderrLogger(process.env.TOOLDECK_LOG_LEVEL === 'debug' ? 'debug' : 'warn'),
        clientInfo: { name: 'tooldeck', version: APP_VERSION },
      });
      try {
        const applied = await installCrds(connection.rest);
        ctx.io.stdout(applied.length ? `Applied CRDs: ${applied.join(', ')}\n` : 'CRDs up to date\n');
        await reconciler.start();
        ctx.io.stdout(`Reconciling ${scope} on ${connection.server} (context ${connection.context})\n`);
        if (flags.once) {
          let timer: NodeJS.Timeout | undefined;
          const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutSeconds * 1_000)));
          const outcome = await Promise.race([reconciler.whenSteady().then(() => 'steady' as const), timedOut]);
          clearTimeout(timer);
          if (outcome === 'timeout') {
            const failures = [...reconciler.failures()].map(([key, f]) => `  ${key}: ${f.message} (attempt ${f.attempts})`);
            throw new CliExit(ExitCode.Failed, `No steady state after ${timeoutSeconds} s${failures.length ? `; still failing:\n${failures.join('\n')}` : ''}`);
          }
          const counts = reconciler.stats.snapshot();
          ctx.io.stdout(`Steady state: ${counts.total} requests, ${counts.writes} writes\n`);
          ctx.io.stdout(formatInventory(await readInventory(connection)));
        } else {
          await new Promise<void>((resolve) => {
            const stop = () => {
              process.off('SIGINT', stop);
              process.off('SIGTERM', stop);
              resolve();
            };
            process.on('SIGINT', stop);
            process.on('SIGTERM', stop);
          });
        }
      } finally {
        await reconciler.stop();
        connection.close();
      }
    });

  registerApprove(kube, ctx);

  withTarget(kube.command('inventory'))
    .description('List tools per namespace: phase, endpoint, number of tools, agents that use them')
    .option('--json', 'print JSON')
    .action(async (flags: TargetFlags & { json?: boolean }) => {
      const connection = await connectKubeTarget(flags);
      const { readInventory } = await loadKubeModules();
      try {
        const inventory = await readInventory(connection);
        ctx.io.stdout(flags.json ? `${JSON.stringify(inventory, null, 2)}\n` : formatInventory(inventory));
      } finally {
        connection.close();
      }
    });
}

/** `tooldeck kube approve <namespace>/<tool>`: the tool's discovered definitions become the approved ones. */
function registerApprove(kube: Command, ctx: CliContext) {
  kube
    .command('approve <tool>')
    .description("Approve a LanguageTool's discovered tool definitions (<namespace>/<tool>): writes langop.io/approved-definitions with server-side apply, so agents get its endpoint again")
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: the current one)')
    .option('--hash <sha256>', 'approve only if the tool still lists exactly this set (as `kube inventory --json` or the Cluster section shows it)')
    .action(async (ref: string, flags: Omit<TargetFlags, 'namespace'> & { hash?: string }) => {
      const match = /^([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(ref);
      if (!match) throw new CliExit(ExitCode.Usage, `name the tool as <namespace>/<tool>, not "${ref}"`);
      if (flags.hash !== undefined && !/^sha256:[0-9a-f]{64}$/.test(flags.hash)) throw new CliExit(ExitCode.Usage, '--hash takes sha256:<64 hex digits>');
      const connection = await connectKubeTarget(flags);
      try {
        const { approveClusterDefinitions, definitionsHeld } = await import('../../../main/kube/toolDefinitions');
        const { isAppError } = await import('../../../shared/errors');
        const { isNotFound } = await import('../../../main/kube/KubeApiError');
        const approved = await approveClusterDefinitions(connection.rest, match[1]!, match[2]!, flags.hash).catch((error: unknown) => {
          if (isNotFound(error)) throw new CliExit(ExitCode.Failed, `No LanguageTool ${ref}`);
          if (isAppError(error)) throw new CliExit(ExitCode.Failed, error.message);
          throw error;
        });
        const changed = approved.tool.status?.conditions?.find((condition) => condition.type === 'DefinitionsChanged');
        if (definitionsHeld(approved.tool.status) && changed?.message) ctx.io.stdout(`${ref}: ${changed.message}\n`);
        ctx.io.stdout(`Approved ${ref} definitions ${approved.hash}\n`);
      } finally {
        connection.close();
      }
    });
}

export function formatInventory(inventory: KubeInventory): string {
  if (inventory.namespaces.length === 0) return `No LanguageTools or LanguageAgents on ${inventory.server}\n`;
  const lines: string[] = [];
  for (const ns of inventory.namespaces) {
    lines.push(`Namespace ${ns.namespace}: ${ns.tools.length} tools, ${ns.agents.length} agents`);
    const rows = ns.tools.map((t) => [t.name, `${t.phase}${t.deleting ? ' (deleting)' : ''}${t.definitionsChanged ? ' (definitions changed)' : ''}`, t.deploymentMode, String(t.toolCount), t.endpoint ?? '-', t.agents.join(',') || '-']);
    const header = ['TOOL', 'PHASE', 'MODE', 'TOOLS', 'ENDPOINT', 'AGENTS'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const row of [header, ...rows]) lines.push(`  ${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}`);
  }
  return `${lines.join('\n')}\n`;
}
