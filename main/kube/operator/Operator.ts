import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LANGOP_API_VERSION } from '../../../shared/kube';
import type { Logger } from '../../platform/Logger';
import { isNotFound } from '../KubeApiError';
import type { KubeConnection } from '../KubeConnection';
import { LeaderElector, type ElectionEnd, type LeaderElectionTimings } from '../leaderelection/LeaderElector';
import { KubeLeaseLock, leasePath, type LeaseObject } from '../leaderelection/LeaseLock';
import { LanguageToolReconciler, type ReconcileOutcome } from '../LanguageToolReconciler';
import type { GatewayTarget } from '../gatewayAgents';
import { ResilientInformer } from '../ResilientInformer';
import { EventRecorder } from './EventRecorder';
import { OperatorMetrics } from './OperatorMetrics';
import { OPERATOR_ANNOTATIONS, OPERATOR_COMPONENT, OPERATOR_LABELS, OPERATOR_LEASE_SELECTOR } from './operatorLease';

export interface OperatorOptions {
  connection: KubeConnection;
  /** Namespaces to watch; empty: all of them. */
  namespaces: string[];
  /** The holder identity: the pod name. */
  identity: string;
  leaseNamespace: string;
  leaseName: string;
  timings: LeaderElectionTimings;
  logger: Logger;
  version: string;
  /** Where /healthz, /readyz and /metrics are served. */
  listen: { host: string; port: number };
  workers?: number;
  /** Which Secrets a LanguageTool may read through secretKeyRef (see LanguageToolReconcilerOptions.toolSecrets). */
  toolSecrets?: 'labelled' | 'any';
  /** Where opted-in LanguageAgents' tool calls go (see LanguageToolReconcilerOptions.gateway). */
  gateway?: GatewayTarget;
}

export type OperatorEnd = 'stopped' | 'lost';

/**
 * `tooldeck operator`: the Kubernetes reconciler as an in-cluster controller. Every replica keeps
 * its caches warm; only the one holding the Lease runs reconcile workers. Losing the lease ends
 * the process (as client-go controllers do) so the replica rejoins with a clean slate; a stop
 * finishes the passes in flight and then releases the lease so a follower takes over at once.
 */
export class Operator {
  private readonly reconcilers: LanguageToolReconciler[];
  private readonly elector: LeaderElector;
  private readonly leaseWatch: ResilientInformer<LeaseObject>;
  private readonly events: EventRecorder;
  readonly metrics: OperatorMetrics;
  private server?: Server;
  private everLed = false;
  private workersStarted = false;
  private shuttingDown = false;
  private stopping?: Promise<void>;
  private lastReconcile?: { at: string; key: string; error?: string };
  private readonly ended: Promise<OperatorEnd>;
  private resolveEnded!: (end: OperatorEnd) => void;

  constructor(private readonly options: OperatorOptions) {
    const { connection, logger } = options;
    const scopes = options.namespaces.length ? options.namespaces : [undefined];
    this.reconcilers = scopes.map(
      (namespace) =>
        new LanguageToolReconciler({
          connection: { ...connection, namespace },
          logger,
          clientInfo: { name: OPERATOR_COMPONENT, version: options.version },
          workers: options.workers,
          toolSecrets: options.toolSecrets,
          gateway: options.gateway,
          onOutcome: (outcome) => this.onOutcome(outcome),
        }),
    );
    this.events = new EventRecorder({ rest: connection.rest, controller: `tooldeck.dev/${OPERATOR_COMPONENT}`, instance: options.identity, logger });
    this.elector = new LeaderElector({
      lock: new KubeLeaseLock(connection.rest, options.leaseNamespace, options.leaseName, OPERATOR_COMPONENT),
      identity: options.identity,
      logger,
      ...options.timings,
      labels: OPERATOR_LABELS,
      annotations: () => this.leaseAnnotations(),
      onStartedLeading: () => void this.lead(),
      onNewLeader: (holder) => logger.info('lease holder', { holder: holder ?? '(none)', lease: `${options.leaseNamespace}/${options.leaseName}` }),
    });
    this.leaseWatch = new ResilientInformer<LeaseObject>({
      kc: connection.kc,
      rest: connection.rest,
      path: leasePath(options.leaseNamespace),
      labelSelector: OPERATOR_LEASE_SELECTOR,
      logger,
      backoff: { baseMs: 1_000, maxMs: 30_000 },
      onEvent: (_event, lease) => this.elector.observe(lease),
    });
    this.metrics = new OperatorMetrics(
      {
        queueDepth: () => this.reconcilers.reduce((n, r) => n + r.loop.queue.depth, 0),
        retrying: () => this.reconcilers.reduce((n, r) => n + r.loop.queue.retrying().length, 0),
        leading: () => this.elector.isLeader,
        renewals: () => this.elector.status().renewals,
        requests: () => connection.rest.stats.snapshot(),
      },
      options.leaseName,
    );
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
  }

  /** Serves the endpoints, fills the caches and campaigns. Resolves once the endpoints listen. */
  async start(): Promise<{ url: string }> {
    const url = await this.listen();
    void this.checkCrds();
    for (const reconciler of this.reconcilers) void reconciler.startInformers();
    void this.leaseWatch.start();
    void this.elector.run().then((end) => this.onElectionEnd(end));
    return { url };
  }

  /** Resolves when the operator has ended: stopped, or the lease was lost (the process should exit non-zero). */
  whenEnded(): Promise<OperatorEnd> {
    return this.ended;
  }

  get synced(): boolean {
    return this.reconcilers.every((r) => r.synced);
  }

  /** Ready once the caches are filled; a replica that has led is ready only while it holds the lease. */
  get ready(): boolean {
    return !this.shuttingDown && this.synced && (!this.everLed || this.elector.isLeader);
  }

  /**
   * Graceful stop (SIGTERM): stop taking keys, let the passes in flight finish, flush events,
   * release the lease, then close watches, endpoints and the connection.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.shuttingDown = true;
      await Promise.all(this.reconcilers.map((r) => r.stopWorkers()));
      await this.events.flush();
      const end = await this.elector.stop();
      await this.leaseWatch.stop();
      await Promise.all(this.reconcilers.map((r) => r.stop()));
      await this.closeServer();
      this.options.connection.close();
      this.resolveEnded(end === 'lost' ? 'lost' : 'stopped');
    })();
    return this.stopping;
  }

  /** The watches retry a missing API quietly; say once, plainly, why the operator is not ready. */
  private async checkCrds() {
    try {
      await this.options.connection.rest.request('GET', `/apis/${LANGOP_API_VERSION}`);
    } catch (error) {
      const missing = isNotFound(error);
      this.options.logger.error(missing ? `The ${LANGOP_API_VERSION} CRDs are not installed: run tooldeck kube install (the operator waits for them)` : 'Cannot read the langop.io API', {
        error: (error as Error).message,
      });
    }
  }

  // ---- leading -------------------------------------------------------------------------------

  private async lead() {
    this.everLed = true;
    // Reconcile only from full caches: a partial view would delete or rewrite what it has not seen yet.
    await Promise.all(this.reconcilers.map((r) => r.whenSynced()));
    if (!this.elector.isLeader || this.shuttingDown || this.workersStarted) return;
    this.workersStarted = true;
    this.options.logger.info('leading: reconciling', { namespaces: this.options.namespaces.length ? this.options.namespaces : 'all' });
    for (const reconciler of this.reconcilers) reconciler.startWorkers();
  }

  private onElectionEnd(end: ElectionEnd) {
    if (end !== 'lost' || this.shuttingDown) return;
    this.options.logger.error('lost the lease: stopping so that only the new holder reconciles', { lease: `${this.options.leaseNamespace}/${this.options.leaseName}` });
    void this.stop();
  }

  private onOutcome(outcome: ReconcileOutcome) {
    this.metrics.observe(outcome);
    this.lastReconcile = { at: new Date().toISOString(), key: `${outcome.kind}/${outcome.namespace}/${outcome.name}`, ...(outcome.error ? { error: outcome.error } : {}) };
    if (!outcome.object) return;
    const subject = { apiVersion: LANGOP_API_VERSION, kind: outcome.kind, namespace: outcome.namespace, name: outcome.name, uid: outcome.object.metadata.uid };
    // A refusal (NameConflict, FieldConflict, SecretNotAllowed) is an Event of its own reason, so `kubectl get events` says what was left alone and why.
    if (outcome.error) this.events.record(subject, 'Warning', outcome.reason ?? 'ReconcileFailed', outcome.reason ? 'Refuse' : 'Reconcile', outcome.error);
    else if (outcome.changes.length) this.events.record(subject, 'Normal', 'Reconciled', 'Reconcile', outcome.changes.join('; '));
  }

  /** What the console reads off the Lease: written with each renewal, so it costs no extra request. */
  private leaseAnnotations(): Record<string, string> {
    const failing = this.reconcilers.reduce((n, r) => n + r.loop.queue.retrying().length, 0);
    return {
      [OPERATOR_ANNOTATIONS.namespaces]: this.options.namespaces.length ? this.options.namespaces.join(',') : '*',
      [OPERATOR_ANNOTATIONS.version]: this.options.version,
      [OPERATOR_ANNOTATIONS.renewals]: String(this.elector.status().renewals),
      [OPERATOR_ANNOTATIONS.failing]: String(failing),
      ...(this.lastReconcile ? { [OPERATOR_ANNOTATIONS.lastReconcile]: this.lastReconcile.at } : {}),
    };
  }

  // ---- endpoints -----------------------------------------------------------------------------

  private async listen(): Promise<string> {
    const server = createServer((request, response) => void this.serve(request.method ?? 'GET', new URL(request.url ?? '/', 'http://operator').pathname, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.listen.port, this.options.listen.host, resolve);
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  }

  private async serve(method: string, path: string, response: import('node:http').ServerResponse) {
    if (method !== 'GET' && method !== 'HEAD') return response.writeHead(405, { allow: 'GET' }).end();
    if (path === '/healthz' || path === '/livez') return response.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    if (path === '/readyz') {
      const checks = [
        ['informers-synced', this.synced],
        ['lease', !this.everLed || this.elector.isLeader],
        ['shutdown', !this.shuttingDown],
      ] as const;
      const body = checks.map(([name, ok]) => `[${ok ? '+' : '-'}]${name} ${ok ? 'ok' : 'failed'}`).join('\n');
      return response.writeHead(this.ready ? 200 : 503, { 'content-type': 'text/plain' }).end(`${body}\n${this.ready ? 'readyz check passed' : 'readyz check failed'}\n`);
    }
    if (path === '/metrics') {
      try {
        const text = await this.metrics.text();
        return response.writeHead(200, { 'content-type': this.metrics.contentType }).end(text);
      } catch (error) {
        return response.writeHead(500, { 'content-type': 'text/plain' }).end(`${(error as Error).message}\n`);
      }
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: /healthz, /readyz and /metrics are served here\n');
  }

  private async closeServer() {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
