import type { Logger } from '../../platform/Logger';
import { microTime } from '../leaderelection/LeaseLock';
import { CONTENT_TYPE, type KubeRest } from '../KubeRest';

export interface EventSubject {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

export interface EventRecorderOptions {
  rest: KubeRest;
  /** events.k8s.io reportingController, e.g. tooldeck.dev/operator. */
  controller: string;
  /** reportingInstance: the pod name. */
  instance: string;
  logger: Logger;
  now?: () => number;
}

interface Series {
  name: string;
  namespace: string;
  count: number;
  firstAt: number;
  lastWriteAt: number;
}

/** Repeats of one event within this window are one series. */
const SERIES_WINDOW_MS = 10 * 60_000;
/** A series is written at most this often (its count is kept meanwhile). */
const SERIES_WRITE_INTERVAL_MS = 30_000;
const MAX_NOTE = 1_024;
const MAX_SERIES = 4_096;

/**
 * events.k8s.io/v1 Events about the objects the operator reconciles, as client-go's new-API
 * recorder writes them: an event repeated within the window becomes a series whose count is
 * patched at most every 30 s, so a tool that keeps failing does not flood etcd. Recording never
 * fails a reconcile: a refused event is logged once per reason.
 */
export class EventRecorder {
  private readonly series = new Map<string, Series>();
  private readonly pending = new Set<Promise<void>>();
  private readonly refused = new Set<string>();
  private readonly now: () => number;

  constructor(private readonly options: EventRecorderOptions) {
    this.now = options.now ?? Date.now;
  }

  record(subject: EventSubject, type: 'Normal' | 'Warning', reason: string, action: string, note: string) {
    const text = note.length > MAX_NOTE ? `${note.slice(0, MAX_NOTE - 1)}…` : note;
    const key = [subject.uid ?? `${subject.namespace}/${subject.name}`, type, reason, text].join('\u0000');
    const now = this.now();
    const existing = this.series.get(key);
    let write: Promise<void> | undefined;
    if (existing && now - existing.firstAt < SERIES_WINDOW_MS) {
      existing.count++;
      if (now - existing.lastWriteAt >= SERIES_WRITE_INTERVAL_MS) {
        existing.lastWriteAt = now;
        write = this.patchSeries(existing, now);
      }
    } else {
      const name = `${subject.name}.${(BigInt(now) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000))).toString(16)}`;
      this.remember(key, { name, namespace: subject.namespace, count: 1, firstAt: now, lastWriteAt: now });
      write = this.create(name, subject, type, reason, action, text, now);
    }
    if (!write) return;
    const tracked = write.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Resolves once every event written so far has been answered. */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async create(name: string, subject: EventSubject, type: string, reason: string, action: string, note: string, now: number) {
    await this.send(reason, () =>
      this.options.rest.request('POST', `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(subject.namespace)}/events`, {
        body: {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name, namespace: subject.namespace },
          eventTime: microTime(now),
          reportingController: this.options.controller,
          reportingInstance: this.options.instance,
          action,
          reason,
          type,
          note,
          regarding: { apiVersion: subject.apiVersion, kind: subject.kind, namespace: subject.namespace, name: subject.name, ...(subject.uid ? { uid: subject.uid } : {}) },
        },
      }),
    );
  }

  private async patchSeries(series: Series, now: number) {
    await this.send('series', () =>
      this.options.rest.request('PATCH', `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(series.namespace)}/events/${encodeURIComponent(series.name)}`, {
        contentType: CONTENT_TYPE.mergePatch,
        body: { series: { count: series.count, lastObservedTime: microTime(now) } },
      }),
    );
  }

  private async send(what: string, request: () => Promise<unknown>) {
    try {
      await request();
    } catch (error) {
      if (this.refused.has(what)) return;
      this.refused.add(what);
      this.options.logger.warn('cannot record an event', { reason: what, error: (error as Error).message });
    }
  }

  private remember(key: string, series: Series) {
    if (this.series.size >= MAX_SERIES) {
      const oldest = this.series.keys().next().value;
      if (oldest !== undefined) this.series.delete(oldest);
    }
    this.series.set(key, series);
  }
}
