import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Option, type Command } from 'commander';
import { createStderrLogger } from '../../../main/platform/Logger';
import { APP_VERSION } from '../../common/appVersion';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { connectKubeTarget } from '../connectKubeTarget';
import { integerIn, parseDuration, parseListen } from '../options';
import { safeForTerminal } from '../terminalText';

const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

interface OperatorFlags {
  kubeconfig?: string;
  context?: string;
  namespace: string[];
  leaseNamespace?: string;
  leaseName: string;
  leaseDuration: number;
  renewDeadline: number;
  retryPeriod: number;
  listen: { host: string; port: number };
  workers: number;
  watchNamespaces: string[];
  toolSecrets: string;
  gatewayNamespace?: string;
}

const collectNamespaces = (value: string, previous: string[] = []) => [...previous, ...value.split(',').map((n) => n.trim()).filter(Boolean)];

/** POD_NAMESPACE (downward API), the ServiceAccount's namespace in a pod, else `default`. */
function defaultLeaseNamespace(env: NodeJS.ProcessEnv): string {
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  if (existsSync(SERVICE_ACCOUNT_NAMESPACE_FILE)) return readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, 'utf8').trim();
  return 'default';
}

export function registerOperator(program: Command, ctx: CliContext) {
  program
    .command('operator')
    .description('Run the Kubernetes reconciler as an in-cluster operator: leader election on a Lease, /healthz, /readyz and /metrics')
    .option('--kubeconfig <file>', 'kubeconfig file (default: in-cluster ServiceAccount, else $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: the current one)')
    .addOption(new Option('-n, --namespace <names>', 'watch only these namespaces (comma-separated or repeated)').argParser(collectNamespaces).default([], 'all'))
    .addOption(new Option('--watch-namespaces <names>', 'the same as --namespace (as `kube install --watch-namespaces` passes it)').argParser(collectNamespaces).default([], 'all'))
    .option('--tool-secrets <policy>', 'which Secrets a LanguageTool may read through secretKeyRef: labelled (tooldeck.dev/allow-tool-secrets: "true") or any', 'labelled')
    .option('--gateway-namespace <name>', 'agents labelled tooldeck.dev/gateway=enabled (or in a namespace so labelled) get a credential and reach their tools through the tooldeck-gateway Service of this namespace (as `kube install --gateway` runs it)')
    .option('--lease-namespace <name>', 'namespace of the leader-election Lease (default: $POD_NAMESPACE, the pod’s namespace, else default)')
    .option('--lease-name <name>', 'name of the leader-election Lease', 'tooldeck-operator')
    // Defaults are shown the way they are typed (15s, 127.0.0.1:8080), not as the parsed values.
    .addOption(new Option('--lease-duration <duration>', 'how long followers wait before taking over an unrenewed lease').argParser(parseDuration).default(15_000, '15s'))
    .addOption(new Option('--renew-deadline <duration>', 'how long the leader retries a failing renewal before it stops leading').argParser(parseDuration).default(10_000, '10s'))
    .addOption(new Option('--retry-period <duration>', 'between attempts to acquire or renew the lease').argParser(parseDuration).default(2_000, '2s'))
    .addOption(new Option('--listen <host:port>', 'address of /healthz, /readyz and /metrics (in a pod: 0.0.0.0:8080)').argParser(parseListen).default({ host: '127.0.0.1', port: 8080 }, '127.0.0.1:8080'))
    .option('--workers <n>', 'concurrent reconciles', integerIn(1, 64), 4)
    .action(async (flags: OperatorFlags) => {
      const { validateTimings } = await import('../../../main/kube/leaderelection/LeaderElector');
      const timings = { leaseDurationMs: flags.leaseDuration, renewDeadlineMs: flags.renewDeadline, retryPeriodMs: flags.retryPeriod };
      try {
        validateTimings(timings);
      } catch (error) {
        throw new CliExit(ExitCode.Usage, (error as Error).message);
      }
      if (flags.toolSecrets !== 'labelled' && flags.toolSecrets !== 'any') throw new CliExit(ExitCode.Usage, `--tool-secrets takes labelled or any, not "${safeForTerminal(flags.toolSecrets, 100)}"`);
      if (flags.gatewayNamespace !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(flags.gatewayNamespace)) {
        throw new CliExit(ExitCode.Usage, `--gateway-namespace takes a namespace name, not "${safeForTerminal(flags.gatewayNamespace, 100)}"`);
      }
      const namespaces = [...new Set([...flags.namespace, ...flags.watchNamespaces])];
      const identity = process.env.POD_NAME || hostname();
      const leaseNamespace = flags.leaseNamespace ?? defaultLeaseNamespace(process.env);
      const connection = await connectKubeTarget({ kubeconfig: flags.kubeconfig, context: flags.context });
      const { Operator } = await import('../../../main/kube/operator/Operator');
      const logger = createStderrLogger(process.env.TOOLDECK_LOG_LEVEL === 'debug' ? 'debug' : 'info');
      const operator = new Operator({
        connection,
        namespaces,
        toolSecrets: flags.toolSecrets,
        ...(flags.gatewayNamespace ? { gateway: { namespace: flags.gatewayNamespace } } : {}),
        identity,
        leaseNamespace,
        leaseName: flags.leaseName,
        timings,
        logger,
        version: APP_VERSION,
        listen: flags.listen,
        workers: flags.workers,
      });
      let url: string;
      try {
        ({ url } = await operator.start());
      } catch (error) {
        await operator.stop();
        throw new CliExit(ExitCode.Failed, `Cannot serve the operator endpoints on ${flags.listen.host}:${flags.listen.port}: ${(error as Error).message}`);
      }
      logger.info('operator started', {
        identity,
        lease: `${leaseNamespace}/${flags.leaseName}`,
        namespaces: namespaces.length ? namespaces : 'all',
        server: connection.server,
        endpoints: url,
        ...timings,
      });
      // A signal is the operator's normal end: it finishes its work, releases the lease and exits 0.
      void ctx.runUntilStopped().then(() => operator.stop());
      const end = await operator.whenEnded();
      if (end === 'lost') throw new CliExit(ExitCode.Failed, `Lost the lease ${leaseNamespace}/${flags.leaseName}; exiting so that only its new holder reconciles`);
      ctx.io.stderr(`Operator ${identity} stopped\n`);
    });
}
