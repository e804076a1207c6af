import { Option, type Command } from 'commander';
import type { CliContext } from '../CliContext';
import type { ApplyFlags } from './resourcesActions';

// The actions load the workspace, YAML and Kubernetes modules only when a command runs, so every
// other command (and --help) starts without them.

/** `tooldeck validate` and `tooldeck apply`: resource YAML checked with every rule of its kind. */
export function registerResources(program: Command, ctx: CliContext) {
  program
    .command('validate')
    .description('Check resource YAML (multi-document): every error with file, line, column and path; exit 1 on errors')
    .requiredOption('-f, --filename <file>', 'a YAML file, or a <service>.claw-describe.json descriptor')
    .option('--defaults', 'print the objects with every default applied (what will be stored), as YAML')
    .action(async (flags: { filename: string; defaults?: boolean }) => (await import('./resourcesActions')).validate(ctx, flags));

  program
    .command('apply')
    .description('Validate and apply resources: into the workspace (local: McpServers reconciled once here, with the outcome) or to a cluster')
    .requiredOption('-f, --filename <file>', 'a YAML file (multi-document)')
    .addOption(
      new Option('--target <target>', 'local: the YAML workspace; cluster: server-side apply of LanguageTools and LanguageAgents').choices(['local', 'cluster']).default('local'),
    )
    .option('--dry-run', 'say what would change, change nothing')
    .option('--workspace <dir>', 'local: the workspace folder (default: the one the console opens)')
    .option('--kubeconfig <file>', 'cluster: kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'cluster: kubeconfig context')
    .option('-n, --namespace <name>', "cluster: namespace for objects that name none (default: the context's, else default)")
    .option('--yes', "local: start the folder's stdio commands not confirmed yet without asking (they are confirmed for this folder)")
    .action(async (flags: ApplyFlags) => (await import('./resourcesActions')).apply(ctx, flags));

  program
    .command('reconcile')
    .description("Reconcile the workspace's McpServers once and report each outcome (exit 1 unless all are Ready)")
    .option('--once', 'reconcile once and exit (the console reconciles continuously)')
    .option('--workspace <dir>', 'the workspace folder (default: the one the console opens)')
    .option('--yes', "start the folder's stdio commands not confirmed yet without asking (they are confirmed for this folder)")
    .action(async (flags: { once?: boolean; workspace?: string; yes?: boolean }) => (await import('./resourcesActions')).reconcileWorkspace(ctx, flags));
}
