import type { Command } from 'commander';
import type { GatewayReplicasStatus } from '../../../shared/kubeApi';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { connectKubeTarget } from '../connectKubeTarget';
import { jsonForTerminal, safeForTerminal, terminalName } from '../terminalText';

interface GatewayStatusFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  json?: boolean;
}

/**
 * `tooldeck kube gateway status`: each gateway replica's traffic, as the console's Cluster section
 * shows it, from the replicas' /metrics through the API server's pod proxy. Exit 0 when every
 * replica was read; 1 when no gateway is installed or something could not be read (said on
 * stderr, the rest still printed); 2 for bad flags, 3 when the cluster does not answer.
 */
export function registerKubeGateway(kube: Command, ctx: CliContext) {
  const gateway = kube.command('gateway').description('The MCP gateway in the cluster (tooldeck kube install --gateway)');
  gateway
    .command('status')
    .description("Each gateway replica's calls, errors and held calls, per agent, from its /metrics through the API server's pod proxy")
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: the current one)')
    .option('-n, --namespace <name>', 'only the gateway of this namespace (default: all namespaces)')
    .option('--json', 'print JSON')
    .action(async (flags: GatewayStatusFlags) => {
      const connection = await connectKubeTarget(flags);
      let status: GatewayReplicasStatus;
      try {
        const { readGatewayReplicas } = await import('../../../main/kube/operator/readGatewayReplicas');
        status = await readGatewayReplicas(connection.rest, flags.namespace ? { namespace: flags.namespace } : {});
      } catch (error) {
        throw new CliExit(ExitCode.Failed, `Cannot read the gateway replicas: ${safeForTerminal((error as Error).message, 500)}`);
      } finally {
        connection.close();
      }
      ctx.io.stdout(flags.json ? `${jsonForTerminal(status)}\n` : formatGatewayReplicas(status));
      const unread = status.replicas.filter((replica) => replica.problem);
      if (status.deployments.length === 0 && status.replicas.length === 0 && status.problems.length === 0) {
        throw new CliExit(ExitCode.Failed, `No gateway runs ${flags.namespace ? `in namespace ${terminalName(flags.namespace)}` : 'in this cluster'}: install one with \`tooldeck kube install --gateway\``);
      }
      if (status.problems.length > 0 || unread.length > 0) {
        throw new CliExit(ExitCode.Failed, [...status.problems, ...unread.map((replica) => `${replica.namespace}/${replica.pod}: ${replica.problem}`)].map((line) => safeForTerminal(line, 600)).join('\n'));
      }
    });
}

export function formatGatewayReplicas(status: GatewayReplicasStatus): string {
  const lines: string[] = [];
  for (const d of status.deployments) lines.push(`Deployment ${terminalName(`${d.namespace}/${d.name}`)}: ${d.readyReplicas}/${d.replicas} ready${d.image ? `, ${terminalName(d.image, 300)}` : ''}`);
  if (status.replicas.length === 0) return `${lines.join('\n')}${lines.length ? '\n' : ''}`;
  const rows: string[][] = [['REPLICA', 'READY', 'CALLS', 'ERRORS', 'HELD', 'APPROVED', 'REFUSED', 'RATE-LIMITED']];
  for (const replica of status.replicas) {
    const decided = replica.agents.reduce((sum, agent) => [sum[0]! + agent.approved, sum[1]! + agent.refused], [0, 0]);
    const ready = replica.ready ? 'yes' : replica.phase === 'Running' ? 'no' : terminalName(replica.phase, 40);
    const name = terminalName(`${replica.namespace}/${replica.pod}`, 120);
    const t = replica.traffic;
    rows.push(t ? [name, ready, String(t.calls), String(t.errors), String(t.held), String(decided[0]), String(decided[1]), String(t.rateLimited)] : [name, ready, '-', '-', '-', '-', '-', '-']);
    // Agent names come from the replica's answer: shown as names, every hidden or control character revealed.
    for (const agent of replica.agents) rows.push([`  ${terminalName(agent.agent, 120)}`, '', String(agent.calls), String(agent.errors), String(agent.held), String(agent.approved), String(agent.refused), String(agent.rateLimited)]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) lines.push(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd());
  return `${lines.join('\n')}\n`;
}
