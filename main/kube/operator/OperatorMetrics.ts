import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestCounts } from '../RequestStats';
import type { ReconcileOutcome } from '../LanguageToolReconciler';

/** What the metrics read at scrape time. */
export interface OperatorMetricSources {
  queueDepth(): number;
  /** Keys waiting for a retry after a failure. */
  retrying(): number;
  leading(): boolean;
  renewals(): number;
  requests(): RequestCounts;
}

const QUEUE = 'tooldeck';

/**
 * The operator's Prometheus metrics, named as controller-runtime names them
 * (`controller_runtime_reconcile_total`, `workqueue_depth`, `leader_election_master_status`, …) so
 * the dashboards and alerts written for Kubernetes controllers work unchanged, plus the process
 * metrics (resident memory, CPU, event-loop lag) every Node exporter has.
 */
export class OperatorMetrics {
  readonly registry = new Registry();
  private readonly reconciles: Counter<'controller' | 'result'>;
  private readonly errors: Counter<'controller'>;
  private readonly duration: Histogram<'controller'>;
  private readonly retries: Counter<'name'>;

  constructor(sources: OperatorMetricSources, leaseName: string) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.reconciles = new Counter({ name: 'controller_runtime_reconcile_total', help: 'Reconcile passes per controller (kind) and result', labelNames: ['controller', 'result'], registers });
    this.errors = new Counter({ name: 'controller_runtime_reconcile_errors_total', help: 'Reconcile passes that failed, per controller (kind)', labelNames: ['controller'], registers });
    this.duration = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Duration of reconcile passes per controller (kind)',
      labelNames: ['controller'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.retries = new Counter({ name: 'workqueue_retries_total', help: 'Keys queued again after a failed reconcile', labelNames: ['name'], registers });
    new Gauge({
      name: 'workqueue_depth',
      help: 'Keys waiting in the work queue',
      labelNames: ['name'],
      registers,
      collect() {
        this.set({ name: QUEUE }, sources.queueDepth());
      },
    });
    new Gauge({
      name: 'tooldeck_operator_retrying_keys',
      help: 'Keys whose last reconcile failed and that wait for their retry',
      registers,
      collect() {
        this.set(sources.retrying());
      },
    });
    new Gauge({
      name: 'leader_election_master_status',
      help: '1 while this replica holds the lease and reconciles, else 0',
      labelNames: ['name'],
      registers,
      collect() {
        this.set({ name: leaseName }, sources.leading() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'tooldeck_operator_lease_renewals',
      help: 'Lease renewals since this replica last acquired the lease',
      registers,
      collect() {
        this.set(sources.renewals());
      },
    });
    new Gauge({
      name: 'tooldeck_operator_api_requests',
      help: 'Requests this replica sent to the Kubernetes API since it started, by type (reads and writes of reconciles, proxy, watches, leases, conflicts, failures)',
      labelNames: ['type'],
      registers,
      collect() {
        const counts = sources.requests();
        for (const type of ['reads', 'writes', 'proxy', 'watches', 'leases', 'conflicts', 'failures'] as const) this.set({ type }, counts[type]);
      },
    });
  }

  observe(outcome: ReconcileOutcome) {
    const controller = outcome.kind.toLowerCase();
    this.reconciles.inc({ controller, result: outcome.error ? 'error' : 'success' });
    this.duration.observe({ controller }, outcome.durationMs / 1_000);
    if (outcome.error) {
      this.errors.inc({ controller });
      this.retries.inc({ name: QUEUE });
    }
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
