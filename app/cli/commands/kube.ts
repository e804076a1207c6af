import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { createStderrLogger } from '../../../main/platform/Logger';
import type { KubeInventory } from '../../../shared/kubeApi';
import { APP_VERSION } from '../../common/appVersion';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { connectKubeTarget } from '../connectKubeTarget';
import { registerKubeGateway } from './kubeGateway';
import { integerIn, parseTimeoutSeconds } from '../options';
import { jsonForTerminal, safeForTerminal } from '../terminalText';

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
  const [{ installCrds, ForeignCrdError }, { LanguageToolReconciler }, { readInventory }] = await Promise.all([
    import('../../../main/kube/crds'),
    import('../../../main/kube/LanguageToolReconciler'),
    import('../../../main/kube/readInventory'),
  ]);
  return { installCrds, ForeignCrdError, LanguageToolReconciler, readInventory };
};

/**
 * The revision store of the data dir, the one the console's History views read: what a local
 * reconcile sees of each LanguageTool's discovered definitions is recorded there. A store that
 * cannot be opened keeps this run's revisions in memory (said on stderr); it never stops a reconcile.
 */
async function openDefinitionStore(ctx: CliContext) {
  const { DEFINITIONS_FILE_NAME, DefinitionStore } = await import('../../../main/lock/DefinitionStore');
  try {
    mkdirSync(ctx.dataDir, { recursive: true, mode: 0o700 });
  } catch {
    // DefinitionStore.open reports it and falls back to memory.
  }
  const store = DefinitionStore.open(join(ctx.dataDir, DEFINITIONS_FILE_NAME));
  if (store.report) ctx.io.stderr(`Warning: ${store.report}\n`);
  return store;
}

export function registerKube(program: Command, ctx: CliContext) {
  const kube = program.command('kube').description('Reconcile LanguageTools and LanguageAgents in a Kubernetes cluster');

  withTarget(kube.command('reconcile'))
    .description('Install the CRDs and reconcile tools into Deployments, Services and agent configs')
    .option('--once', 'exit once everything has converged (steady state)')
    .option('--timeout <seconds>', 'with --once: give up after this long (exit 1)', parseTimeoutSeconds, 300)
    .action(async (flags: TargetFlags & { once?: boolean; timeout: number }) => {
      const timeoutSeconds = flags.timeout;
      const connection = await connectKubeTarget(flags);
      const scope = flags.namespace ? `namespace ${flags.namespace}` : 'all namespaces';
      const { LanguageToolReconciler, installCrds, ForeignCrdError, readInventory } = await loadKubeModules();
      const definitions = await openDefinitionStore(ctx);
      const reconciler = new LanguageToolReconciler({
        connection,
        logger: createStderrLogger(process.env.TOOLDECK_LOG_LEVEL === 'debug' ? 'debug' : 'warn'),
        clientInfo: { name: 'tooldeck', version: APP_VERSION },
        definitions,
      });
      const stopWatching = new AbortController();
      try {
        const canCheck = await refuseWhenOperatorReconciles(connection.rest, flags.namespace, scope, ctx);
        // Were it checked only at start, an operator deployed (or scaled up) later would reconcile the
        // same objects as this process for as long as it runs: keep re-reading the Leases and leave.
        const takenOver = canCheck ? untilOperatorTakesOver(connection.rest, flags.namespace, scope, ctx, stopWatching.signal) : new Promise<never>(() => {});
        // Handled where it is raced below; this keeps a takeover during the CRD install from counting as unhandled.
        takenOver.catch(() => {});
        const crds = await installCrds(connection.rest).catch((error: unknown) => {
          if (error instanceof ForeignCrdError) throw new CliExit(ExitCode.Failed, error.message);
          throw error;
        });
        ctx.io.stdout(crds.applied.length ? `Applied CRDs: ${crds.applied.join(', ')}\n` : 'CRDs up to date\n');
        if (crds.kept.length) ctx.io.stdout(`Using CRDs another installer owns, unchanged: ${crds.kept.join(', ')}\n`);
        await Promise.race([reconciler.start(), takenOver]);
        ctx.io.stdout(`Reconciling ${scope} on ${connection.server} (context ${connection.context})\n`);
        if (flags.once) {
          let timer: NodeJS.Timeout | undefined;
          const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutSeconds * 1_000)));
          const outcome = await Promise.race([reconciler.whenSteady().then(() => 'steady' as const), timedOut, takenOver]).finally(() => clearTimeout(timer));
          if (outcome === 'timeout') {
            const failures = [...reconciler.failures()].map(([key, f]) => `  ${safeForTerminal(key, 200)}: ${safeForTerminal(f.message, 400)} (attempt ${f.attempts})`);
            throw new CliExit(ExitCode.Failed, `No steady state after ${timeoutSeconds} s${failures.length ? `; still failing:\n${failures.join('\n')}` : ''}`);
          }
          const counts = reconciler.stats.snapshot();
          ctx.io.stdout(`Steady state: ${counts.total} requests, ${counts.writes} writes\n`);
          ctx.io.stdout(formatInventory(await readInventory(connection)));
        } else {
          await Promise.race([new Promise<void>((resolve) => ctx.interrupted.addEventListener('abort', () => resolve(), { once: true })), takenOver]);
        }
      } finally {
        stopWatching.abort();
        await reconciler.stop();
        connection.close();
        definitions.close();
      }
    });

  kube
    .command('install')
    .description('Install the CRDs and the in-cluster operator (ServiceAccount, RBAC, Deployment, PodDisruptionBudget) with server-side apply')
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: the current one)')
    .option('-n, --namespace <name>', 'namespace the operator runs in', 'tooldeck-system')
    .option('--image <image>', 'operator image (build it with the repository’s Dockerfile)', `tooldeck/operator:${APP_VERSION}`)
    .option('--replicas <n>', 'operator replicas (one leads, the others stand by)', integerIn(1, 10), 2)
    .option('--watch-namespaces <names>', 'namespaces the operator reconciles, each granted by a Role of its own (comma-separated; default: the --namespace it runs in)')
    .option('--cluster-wide', 'reconcile every namespace: a ClusterRole that writes Deployments, Services and ConfigMaps and proxies to Services and Pods everywhere')
    .option('--dry-run', 'send everything with dryRun=All and print the diff against the cluster; write nothing')
    .option('--force', 'take over fields another field manager owns')
    .option('--gateway', 'also the MCP gateway for agents: the toolapprovals.orloj.dev CRD, a Deployment running `tooldeck gateway --in-cluster`, its Service and RBAC (the gateway may create and watch ToolApprovals, never decide them)')
    .option('--gateway-replicas <n>', 'with --gateway: gateway replicas (any of them may hold a call; all see every decision)', integerIn(1, 20), 2)
    .option('--history-postgres-secret <name>', "with --gateway: every replica records calls into the PostgreSQL whose postgres:// URL is the Secret's `url` key (in --namespace; create it first)", secretName)
    .action(async (flags: InstallFlags, command: Command) => {
      const { watchNamespaces, scope } = installScope(flags);
      if (command.getOptionValueSource('gatewayReplicas') === 'cli' && !flags.gateway) throw new CliExit(ExitCode.Usage, '--gateway-replicas goes with --gateway');
      if (flags.historyPostgresSecret !== undefined && !flags.gateway) throw new CliExit(ExitCode.Usage, '--history-postgres-secret goes with --gateway');
      // No registry publishes the default image: installed as is, the pods would sit in
      // ImagePullBackOff with nothing here to say why. Someone who names it with --image built it.
      if (command.getOptionValueSource('image') === 'default') ctx.io.stderr(defaultImageWarning(flags.image));
      const connection = await connectKubeTarget(flags);
      const [{ installOperator, InstallConflict, MissingNamespaces, ForeignObject }, { ForeignCrdError }] = await Promise.all([
        import('../../../main/kube/operator/installOperator'),
        import('../../../main/kube/crds'),
      ]);
      try {
        const options = {
          namespace: flags.namespace,
          image: flags.image,
          replicas: flags.replicas,
          watchNamespaces,
          clusterWide: !!flags.clusterWide,
          dryRun: !!flags.dryRun,
          force: !!flags.force,
          ...(flags.gateway ? { gateway: { replicas: flags.gatewayReplicas, ...(flags.historyPostgresSecret ? { historyPostgresSecret: flags.historyPostgresSecret } : {}) } } : {}),
        };
        const results = await installOperator(connection.rest, options).catch(
          (error: unknown) => {
            if (error instanceof InstallConflict || error instanceof MissingNamespaces || error instanceof ForeignObject || error instanceof ForeignCrdError) throw new CliExit(ExitCode.Failed, error.message);
            throw error;
          },
        );
        for (const result of results) {
          const ref = `${result.kind} ${result.namespace ? `${result.namespace}/` : ''}${result.name}`;
          if (result.action === 'kept') {
            ctx.io.stdout(`${'kept'.padEnd(10)} ${ref} (${safeForTerminal(result.note ?? '', 200)})\n`);
            continue;
          }
          if (!flags.dryRun) {
            ctx.io.stdout(`${result.action.padEnd(10)} ${ref}\n`);
            continue;
          }
          ctx.io.stdout(`--- ${ref}: ${result.action === 'unchanged' ? 'unchanged' : `would be ${result.action}`}${result.unvalidated ? ` (not validated by the server: ${result.unvalidated})` : ''}\n`);
          if (result.action !== 'unchanged') ctx.io.stdout(formatDiff(result.diff ?? []));
        }
        const verb = flags.dryRun ? 'Dry run against' : 'Installed on';
        const gateway = flags.gateway ? `, gateway × ${flags.gatewayReplicas} (Service tooldeck-gateway)` : '';
        ctx.io.stdout(`${verb} ${connection.server}: operator ${flags.image} × ${flags.replicas}${gateway} in namespace ${flags.namespace}, reconciling ${scope}${flags.dryRun ? '; nothing was written' : ''}\n`);
      } finally {
        connection.close();
      }
    });
  registerApprove(kube, ctx);
  registerKubeGateway(kube, ctx);

  withTarget(kube.command('inventory'))
    .description('List tools per namespace: phase, endpoint, number of tools, agents that use them')
    .option('--json', 'print JSON')
    .action(async (flags: TargetFlags & { json?: boolean }) => {
      const connection = await connectKubeTarget(flags);
      const { readInventory } = await loadKubeModules();
      try {
        const inventory = await readInventory(connection);
        ctx.io.stdout(flags.json ? `${jsonForTerminal(inventory)}\n` : formatInventory(inventory));
      } finally {
        connection.close();
      }
    });
}

type KubeRest = import('../../../main/kube/KubeRest').KubeRest;
type OperatorLeaseState = import('../../../main/kube/operator/operatorLease').OperatorLeaseState;

/**
 * How often a running `kube reconcile` re-reads the operator Leases: client-go's default retry
 * period, the interval at which a new holder writes its Lease, so a takeover shows within about one
 * period of the operator acquiring it. One list of a few Leases per period costs the cluster little.
 */
const OPERATOR_RECHECK_MS = 2_000;

const covering = (holder: OperatorLeaseState) => (holder.scope ? `namespaces ${holder.scope.join(', ')}` : 'all namespaces');
const howToStop = (holder: OperatorLeaseState) =>
  `Two controllers would fight over the same objects; stop the operator (kubectl -n ${holder.namespace} scale deployment/tooldeck-operator --replicas=0) to reconcile from this machine.`;

/**
 * Two controllers must never fight over the same objects: an in-cluster operator holding its lease
 * wins. Returns false when the Leases cannot be read (forbidden), so there is nothing to keep checking.
 */
async function refuseWhenOperatorReconciles(rest: KubeRest, namespace: string | undefined, scope: string, ctx: CliContext): Promise<boolean> {
  const { listOperatorLeases, operatorCovering } = await import('../../../main/kube/operator/operatorLease');
  const { leases, forbidden } = await listOperatorLeases(rest);
  if (forbidden) ctx.io.stderr(`Warning: cannot check for an in-cluster operator (listing Leases is forbidden: ${forbidden}); make sure none reconciles ${scope}\n`);
  const holder = operatorCovering(leases, namespace);
  if (!holder) return !forbidden;
  const renewed = holder.renewTime ? ` (renewed ${Math.max(0, Math.round((Date.now() - Date.parse(holder.renewTime)) / 1_000))} s ago)` : '';
  throw new CliExit(ExitCode.Failed, `Not reconciling ${scope}: the in-cluster operator ${holder.holder} holds the Lease ${holder.namespace}/${holder.name}${renewed} and reconciles ${covering(holder)}. ${howToStop(holder)}`);
}

/**
 * Re-reads the operator Leases every OPERATOR_RECHECK_MS until `signal` aborts, and rejects with the
 * exit (1, naming the holder) once an operator holds a Lease whose scope covers this reconcile's.
 * Never resolves: it is raced against the command's own end. A failed read is retried at the next
 * period (said once per streak on stderr), since a blip of the API server is no takeover.
 */
function untilOperatorTakesOver(rest: KubeRest, namespace: string | undefined, scope: string, ctx: CliContext, signal: AbortSignal): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    let failing = false;
    let timer: NodeJS.Timeout | undefined;
    const check = async () => {
      const { listOperatorLeases, operatorCovering } = await import('../../../main/kube/operator/operatorLease');
      try {
        const { leases, forbidden } = await listOperatorLeases(rest);
        if (forbidden) throw new Error(`listing Leases is forbidden: ${forbidden}`);
        failing = false;
        const holder = operatorCovering(leases, namespace);
        if (holder && !signal.aborted) {
          const acquired = holder.acquireTime ? ` (acquired ${Math.max(0, Math.round((Date.now() - Date.parse(holder.acquireTime)) / 1_000))} s ago)` : '';
          reject(
            new CliExit(
              ExitCode.Failed,
              `Stopped reconciling ${scope}: the in-cluster operator ${holder.holder} took the Lease ${holder.namespace}/${holder.name}${acquired} and reconciles ${covering(holder)}. ${howToStop(holder)}`,
            ),
          );
          return;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (!failing) ctx.io.stderr(`Warning: cannot re-check for an in-cluster operator (${(error as Error).message}); trying again every ${OPERATOR_RECHECK_MS / 1_000} s\n`);
        failing = true;
      }
      schedule();
    };
    const schedule = () => {
      if (!signal.aborted) timer = setTimeout(() => void check(), OPERATOR_RECHECK_MS);
    };
    signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    schedule();
  });
}

interface InstallFlags {
  kubeconfig?: string;
  context?: string;
  namespace: string;
  image: string;
  replicas: number;
  watchNamespaces?: string;
  clusterWide?: boolean;
  dryRun?: boolean;
  force?: boolean;
  gateway?: boolean;
  gatewayReplicas: number;
  historyPostgresSecret?: string;
}

const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `--history-postgres-secret`: a Secret's name as Kubernetes allows it (a DNS subdomain). */
function secretName(value: string): string {
  if (value.length > 253 || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(value)) throw new InvalidArgumentError("Give a Secret's name: lowercase letters, digits, dashes and dots (e.g. tooldeck-history).");
  return value;
}

/**
 * Which namespaces `kube install` grants the operator: a Role in each of --watch-namespaces (by
 * default only the namespace it runs in), or a ClusterRole only with --cluster-wide.
 */
function installScope(flags: InstallFlags): { watchNamespaces?: string[]; scope: string } {
  if (!NAMESPACE_NAME.test(flags.namespace)) throw new CliExit(ExitCode.Usage, `--namespace ${safeForTerminal(flags.namespace, 100)} is not a valid namespace name`);
  if (flags.clusterWide && flags.watchNamespaces !== undefined) throw new CliExit(ExitCode.Usage, 'Use --watch-namespaces or --cluster-wide, not both');
  if (flags.clusterWide) return { scope: 'every namespace (a ClusterRole)' };
  const watchNamespaces = flags.watchNamespaces
    ?.split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (watchNamespaces && watchNamespaces.length === 0) throw new CliExit(ExitCode.Usage, '--watch-namespaces needs at least one namespace');
  const invalid = watchNamespaces?.find((n) => !NAMESPACE_NAME.test(n));
  if (invalid !== undefined) throw new CliExit(ExitCode.Usage, `--watch-namespaces: ${safeForTerminal(invalid, 100)} is not a valid namespace name`);
  const watched = [...new Set(watchNamespaces ?? [flags.namespace])];
  return { watchNamespaces: watched, scope: `namespace${watched.length > 1 ? 's' : ''} ${watched.join(', ')} (a Role in each)` };
}

function defaultImageWarning(image: string): string {
  const example = `registry.example/tooldeck/operator:${APP_VERSION}`;
  return (
    `Warning: the default operator image ${image} is not published to any registry, so the operator's pods cannot pull it. ` +
    `Build it from the repository's Dockerfile and push it where the cluster pulls from, then pass it with --image:\n` +
    `  docker build -t ${example} . && docker push ${example}\n` +
    `  tooldeck kube install --image ${example}\n`
  );
}

/** Changed lines with two lines of context around each change. */
export function formatDiff(diff: ReadonlyArray<{ op: ' ' | '+' | '-'; text: string }>): string {
  const keep = new Set<number>();
  diff.forEach((line, i) => {
    if (line.op === ' ') return;
    for (let j = Math.max(0, i - 2); j <= Math.min(diff.length - 1, i + 2); j++) keep.add(j);
  });
  const lines: string[] = [];
  let last = -1;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (last >= 0 && i > last + 1) lines.push('  …');
    lines.push(safeForTerminal(`${diff[i]!.op} ${diff[i]!.text}`, 500));
    last = i;
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
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
        if (definitionsHeld(approved.tool.status) && changed?.message) ctx.io.stdout(`${ref}: ${safeForTerminal(changed.message, 600)}\n`);
        ctx.io.stdout(`Approved ${ref} definitions ${approved.hash}\n`);
      } finally {
        connection.close();
      }
    });
}

export function formatInventory(inventory: KubeInventory): string {
  if (inventory.namespaces.length === 0) return `No LanguageTools or LanguageAgents on ${safeForTerminal(inventory.server, 500)}\n`;
  const lines: string[] = [];
  for (const ns of inventory.namespaces) {
    lines.push(safeForTerminal(`Namespace ${ns.namespace}: ${ns.tools.length} tools, ${ns.agents.length} agents`, 500));
    const rows = ns.tools.map((t) => [t.name, `${t.phase}${t.deleting ? ' (deleting)' : ''}${t.definitionsChanged ? ' (definitions changed)' : ''}`, t.deploymentMode, String(t.toolCount), t.endpoint ?? '-', t.agents.join(',') || '-']);
    const header = ['TOOL', 'PHASE', 'MODE', 'TOOLS', 'ENDPOINT', 'AGENTS'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const row of [header, ...rows]) lines.push(safeForTerminal(`  ${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}`, 500));
  }
  return `${lines.join('\n')}\n`;
}
