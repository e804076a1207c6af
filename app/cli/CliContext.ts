import type { Core, CoreDeps } from '../../main/core';
import { createStderrLogger } from '../../main/platform/Logger';
import { AppError } from '../../shared/errors';
import type { HostKind } from '../../shared/system';
import { APP_VERSION } from '../common/appVersion';
import { CommandLineSecretStore } from './CommandLineSecretStore';
import type { CliIo } from './CliIo';
import { askToLaunch } from './launchConfirmation';

/** Exit codes every command honours. */
export const ExitCode = { Ok: 0, Failed: 1, Usage: 2, CannotConnect: 3 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Thrown by commands to end with a specific exit code and a one-line message on stderr. */
export class CliExit extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

export type { CliIo } from './CliIo';

/** Builds the core on first use, so `--version` and usage errors never touch the data dir. */
export class CliContext {
  private core?: Promise<Core>;

  private readonly interruption = new AbortController();

  constructor(
    readonly io: CliIo,
    private readonly resolveDataDir: () => string,
  ) {}

  /**
   * Aborted by the first SIGINT or SIGTERM: calls in flight pass it on (the protocol's cancel
   * reaches the tool) and long-running commands (serve, reconcile) stop; then the core closes and
   * its servers end.
   */
  get interrupted(): AbortSignal {
    return this.interruption.signal;
  }

  private service = false;

  /**
   * For a command whose job is to run until told to stop and which stops gracefully by itself (the
   * in-cluster operator, whose pod Kubernetes stops with SIGTERM): the first SIGINT/SIGTERM is its
   * normal end, not an interruption. The command is waited for while it
   * stops, and the exit code is its own (0 after a clean stop) rather than 130/143. Resolves with
   * the signal's message.
   */
  runUntilStopped(): Promise<string> {
    this.service = true;
    const signal = this.interruption.signal;
    return new Promise((resolve) => {
      const stopped = () => resolve((signal.reason as Error).message);
      if (signal.aborted) stopped();
      else signal.addEventListener('abort', stopped, { once: true });
    });
  }

  /** True once the command declared itself a service with `runUntilStopped`. */
  get isService(): boolean {
    return this.service;
  }

  interrupt(signal: NodeJS.Signals) {
    this.interruption.abort(new AppError('Canceled', `Interrupted by ${signal}`));
  }

  get dataDir(): string {
    return this.resolveDataDir();
  }

  private workspaceDir?: string;

  private assumeYes = false;
  private approvalStore?: CoreDeps['approvals'];
  private history: Pick<CoreDeps, 'historyUrl' | 'replicaName' | 'historyRetentionDays' | 'historyLive'> = {};
  private clusterAgents?: CoreDeps['clusterAgents'];

  /** The command was given `--yes`: workspace command lines not confirmed yet are confirmed, not asked about. */
  confirmLaunchesWithoutAsking() {
    this.assumeYes = true;
  }

  /** The workspace folder the core opens (before getCore): `apply --workspace` reconciles what it wrote. */
  useWorkspace(dir: string) {
    if (this.core) throw new Error('useWorkspace must come before getCore');
    this.workspaceDir = dir;
  }

  /** Where the core keeps calls held for approval instead of the data dir (`gateway --kubeconfig`); before getCore. */
  useApprovalStore(open: NonNullable<CoreDeps['approvals']>) {
    if (this.core) throw new Error('useApprovalStore must come before getCore');
    this.approvalStore = open;
  }

  /** Where the gateway finds a cluster's agents and their credentials (`gateway --agent-namespace`); before getCore. */
  useClusterAgents(open: NonNullable<CoreDeps['clusterAgents']>) {
    if (this.core) throw new Error('useClusterAgents must come before getCore');
    this.clusterAgents = open;
  }

  /** Where history goes and what this process's records are called (`--history-url`, `--replica-name`, …); before getCore. */
  useHistory(choice: Pick<CoreDeps, 'historyUrl' | 'replicaName' | 'historyRetentionDays' | 'historyLive'>) {
    if (this.core) throw new Error('useHistory must come before getCore');
    this.history = { ...this.history, ...choice };
  }

  /** `serve` hosts the UI, so it connects saved servers at start; one-shot commands connect on demand. */
  getCore(host: HostKind = 'cli'): Promise<Core> {
    // Loaded on first use: --version, --help and usage errors never pay for the services.
    this.core ??= import('../../main/core').then(({ createCore }) => createCore({
      appVersion: APP_VERSION,
      host,
      dataDir: this.dataDir,
      secretStore: new CommandLineSecretStore(this.dataDir),
      logger: createStderrLogger(process.env.TOOLDECK_LOG_LEVEL === 'debug' ? 'debug' : host === 'cli' ? 'error' : 'warn'),
      autoConnect: host !== 'cli',
      shutdownGraceMs: host === 'cli' ? 200 : 2_000,
      ...(this.workspaceDir ? { workspaceDir: this.workspaceDir } : {}),
      ...(this.approvalStore ? { approvals: this.approvalStore } : {}),
      ...(this.clusterAgents ? { clusterAgents: this.clusterAgents } : {}),
      ...this.history,
      // A one-shot command asks; `serve` is a console, whose Resources view offers the confirmation.
      ...(host === 'cli' ? { confirmLaunch: askToLaunch({ io: this.io, assumeYes: () => this.assumeYes, input: this.io.input ?? process.stdin }) } : {}),
    }).then((core) => {
      // `serve` logs it at warn level; a one-shot command's logger only shows errors, and this one
      // the operator must see: where the unusable file went, or that history is not being kept.
      const report = core.historyReport;
      if (host === 'cli' && (report.recovered || !report.persistent)) this.io.stderr(`warning: ${report.message}\n`);
      return core;
    }, (error: unknown) => {
      // A shared history that cannot be used is the operator's to fix (URL, password, reachability): one sentence, exit 2.
      if (error instanceof Error && error.name === 'HistoryOpenError') throw new CliExit(ExitCode.Usage, error.message);
      throw error;
    }));
    return this.core;
  }

  async close() {
    const core = await this.core?.catch(() => undefined);
    await core?.close();
  }
}
