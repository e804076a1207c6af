import { makeInformer, type Informer, type KubeConfig, type KubernetesListObject, type KubernetesObject, type ObjectCache } from '@kubernetes/client-node';
import type { Logger } from '../platform/Logger';
import { ExponentialBackoff, type BackoffOptions } from '../reconcile/ExponentialBackoff';
import type { KubeRest } from './KubeRest';

export type InformerEvent = 'add' | 'update' | 'delete';

export interface ResilientInformerOptions<T> {
  kc: KubeConfig;
  rest: KubeRest;
  /** Collection path, e.g. /apis/apps/v1/deployments or /api/v1/namespaces/x/configmaps. */
  path: string;
  labelSelector?: string;
  logger: Logger;
  backoff?: BackoffOptions;
  /** Objects per list request (default 500); the list follows `continue` tokens to the end. */
  pageSize?: number;
  onEvent: (event: InformerEvent, obj: T) => void;
}

const PAGE_SIZE = 500;

/**
 * A client-node informer that keeps going: on a 410 (history compacted) the informer itself
 * relists; on any other error it stops, so it is restarted here after an exponential backoff,
 * resuming from the last resourceVersion it saw.
 */
export class ResilientInformer<T> {
  private readonly informer: Informer<KubernetesObject> & ObjectCache<KubernetesObject>;
  private readonly backoff: ExponentialBackoff;
  private stopped = false;
  private restartTimer?: NodeJS.Timeout;
  private resolveSynced!: () => void;
  /** Resolves after the first complete list. */
  readonly synced: Promise<void>;

  constructor(private readonly options: ResilientInformerOptions<T>) {
    this.backoff = new ExponentialBackoff({ baseMs: 500, maxMs: 30_000, ...options.backoff });
    this.synced = new Promise((resolve) => (this.resolveSynced = resolve));
    this.informer = makeInformer<KubernetesObject>(options.kc, options.path, () => this.listFromServer(), options.labelSelector);
    this.informer.on('add', (obj) => options.onEvent('add', obj as T));
    this.informer.on('update', (obj) => options.onEvent('update', obj as T));
    this.informer.on('delete', (obj) => options.onEvent('delete', obj as T));
    this.informer.on('connect', () => options.rest.stats.recordWatch());
    this.informer.on('error', (error) => this.restartLater(error));
  }

  start(): Promise<void> {
    this.stopped = false;
    this.informer.start().catch((error: unknown) => this.restartLater(error));
    return this.synced;
  }

  async stop() {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.informer.stop();
  }

  get(name: string, namespace?: string): T | undefined {
    return this.informer.get(name, namespace) as T | undefined;
  }

  /** Cached objects of one namespace, or of all when left out. */
  list(namespace?: string): readonly T[] {
    return this.informer.list(namespace) as readonly T[];
  }

  private async listFromServer(): Promise<KubernetesListObject<KubernetesObject>> {
    const items: KubernetesObject[] = [];
    let resourceVersion = '';
    let continueToken: string | undefined;
    do {
      const page = await this.options.rest.request<KubernetesListObject<KubernetesObject>>('GET', this.options.path, {
        query: { limit: this.options.pageSize ?? PAGE_SIZE, continue: continueToken, labelSelector: this.options.labelSelector },
      });
      items.push(...page.items);
      resourceVersion ||= page.metadata?.resourceVersion ?? '';
      // The raw JSON says `continue`; `_continue` is only what client-node's typed models rename it to.
      continueToken = (page.metadata as { continue?: string } | undefined)?.continue || undefined;
    } while (continueToken);
    this.backoff.reset();
    // The informer fills its cache from this list once it is returned (synchronously, after the
    // promise settles): resolving any earlier would let a caller see an empty cache as synced.
    setImmediate(() => this.resolveSynced());
    return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion }, items };
  }

  private restartLater(error: unknown) {
    if (this.stopped) return;
    clearTimeout(this.restartTimer);
    const delay = this.backoff.next();
    this.options.logger.warn('watch failed; restarting', { path: this.options.path, error: (error as Error)?.message ?? String(error), retryInMs: delay });
    this.restartTimer = setTimeout(() => {
      if (this.stopped) return;
      this.informer.start().catch((e: unknown) => this.restartLater(e));
    }, delay);
  }
}
