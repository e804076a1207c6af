import type { Collection, RunSummary } from '../../shared/collections';
import { AppError } from '../../shared/errors';
import type { Core } from '../core';
import { prepareSource } from '../registry/prepareSource';
import { CollectionRunner, type CollectionRun, type CollectionRunOptions, type RunTarget } from './CollectionRunner';
import { CollectionStore } from './CollectionStore';

/** What collections need of the core. */
export type CollectionsCore = Pick<Core, 'deps' | 'secrets' | 'mcp' | 'a2a' | 'a2aSkills' | 'catalog' | 'pipeline' | 'grpc'>;

/** How many finished runs are kept for reports (JUnit, JSON) after their events are gone. */
const RECENT_RUNS = 20;

/** The saved collections of a data dir and a runner wired to the core's pipeline and connections. */
export class Collections {
  readonly store: CollectionStore;
  readonly runner: CollectionRunner;
  private readonly recent = new Map<string, RunSummary>();

  constructor(private readonly core: CollectionsCore) {
    this.store = new CollectionStore(core.deps.dataDir, core.secrets);
    this.runner = new CollectionRunner({ pipeline: core.pipeline, secretStore: core.secrets, prepareTarget: (target) => this.prepareTarget(target) });
  }

  /** Starts a run and keeps its summary among the recent ones. */
  run(collection: Collection, options: CollectionRunOptions = {}): CollectionRun {
    const run = this.runner.run(collection, options);
    run.summary.then(
      (summary) => {
        this.recent.set(summary.runId, summary);
        if (this.recent.size > RECENT_RUNS) this.recent.delete(this.recent.keys().next().value!);
      },
      () => undefined,
    );
    return run;
  }

  /** The summary of a recent run; NotFound once it has been forgotten. */
  summary(runId: string): RunSummary {
    const summary = this.recent.get(runId);
    if (!summary) throw new AppError('NotFound', `No recent run ${runId}`);
    return summary;
  }

  /** Connects a saved server unless it is ready, reads a saved agent's card, lists a gRPC source. */
  prepareTarget({ kind, name }: RunTarget): Promise<void> {
    return prepareSource(this.core, { kind, name });
  }
}
