import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { ToolApproval, type ToolApprovalStatus } from '../../shared/approvals';
import { AppError, reasonOf } from '../../shared/errors';
import type { ApprovalStore, HoldOptions, HoldRequest } from '../approvals/ApprovalHolder';
import { approvalInputDigest } from '../approvals/approvalInputDigest';
import {
  approvalName,
  byInboxOrder,
  canceledRecord,
  checkedComment,
  checkedDecider,
  checkedName,
  concludeHold,
  DEFAULT_KEEP_DECIDED,
  iso,
  prepareHold,
  notFound,
  notPending,
  withDecision,
  type ApprovalVerdict,
  type DecisionRecord,
} from '../approvals/approvalRules';
import { Emitter } from '../platform/Emitter';
import { systemClock, type Clock } from '../platform/Clock';
import { silentLogger, type Logger } from '../platform/Logger';
import { parseDuration } from '../registry/policy/duration';
import { isConflict, isKubeApiError, isNotFound } from './KubeApiError';
import { CONTENT_TYPE, type KubeRest } from './KubeRest';
import { ResilientInformer } from './ResilientInformer';
import { APPROVAL_ANNOTATIONS, ORLOJ_GROUP, ORLOJ_VERSION, TOOL_APPROVALS_PLURAL } from './toolApprovalCrd';

/** A ToolApproval as the API server holds it. */
export interface ToolApprovalObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string; annotations?: Record<string, string>; deletionTimestamp?: string };
  /** Orloj's schema requires tool, agent, input and ttl; whoever made the object may leave the rest out. */
  spec: Omit<ToolApproval['spec'], 'task_ref' | 'operation_class' | 'reason'> & Partial<Pick<ToolApproval['spec'], 'task_ref' | 'operation_class' | 'reason'>>;
  status?: Partial<ToolApprovalStatus>;
}

export interface ClusterApprovalsOptions {
  connection: { kc: KubeConfig; rest: KubeRest };
  namespace: string;
  /** Which replica holds calls here, written on each approval it makes (default: POD_NAME, else the host name). */
  holder?: string;
  clock?: Clock;
  logger?: Logger;
  /** Decided approvals kept for the inbox's history; older ones are deleted (default DEFAULT_KEEP_DECIDED). */
  keepDecided?: number;
  /** Follow the namespace's ToolApprovals with a watch (default true); a one-shot command reads and decides without one. */
  watch?: boolean;
  /** The version of the rules in force now: an approval given under other rules does not let the call run. */
  currentPolicyVersion?: () => string | undefined;
  /** A Pending approval this long past its expiry that no replica cleaned up (its holder died) is deleted by any replica. */
  abandonedAfterMs?: number;
}

interface Waiter {
  approval: ToolApproval;
  request: HoldRequest;
  /** The object this replica created: an approval of the same name made by anyone else never releases the call. */
  uid?: string;
  finish(record: DecisionRecord, live?: ToolApprovalObject): void;
}

/** How often each replica looks for approvals nobody holds any more (their replica died) past their expiry. */
const SWEEP_EVERY_MS = 60_000;
const DEFAULT_ABANDONED_AFTER_MS = 30_000;

/**
 * Approvals as Orloj ToolApproval objects in one namespace of a cluster, so every gateway replica,
 * the console and `tooldeck approvals --kubeconfig` share them. The API server is the store and the
 * watch is the signal:
 * - a held call creates its ToolApproval (Orloj's spec; the binding to the exact call in
 *   annotations) and waits; the replica that holds it is woken by the watch when the status
 *   subresource says Approved or Denied, and checks the object is still the one it made (uid,
 *   agent, tool, the digest of the arguments recomputed from the object, the policy version);
 * - a decision is a merge patch of the status subresource carrying the resourceVersion it read, so
 *   of two deciders exactly one wins (the other gets a conflict), and the CRD's own rule refuses to
 *   decide a decided approval again;
 * - the gateway may not write status (RBAC): it cannot approve its own calls. Expiry and
 *   cancellation end the call here, fail closed, and delete the object; a replica that died while
 *   holding leaves Pending objects that any replica deletes once past their expiry.
 */
export class ClusterApprovals implements ApprovalStore {
  private readonly rest: KubeRest;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly collection: string;
  private readonly holder: string;
  private readonly waiters = new Map<string, Waiter>();
  private readonly changes = new Emitter((error) => this.logger.warn('approval listener failed', { error: reasonOf(error) }));
  private readonly work = new Set<Promise<unknown>>();
  /** Deletes sent and not yet answered. */
  private readonly removing = new Set<string>();
  private informer?: ResilientInformer<ToolApprovalObject>;
  private stopSweeping = () => {};
  /** Who these credentials are, as the API server authenticates them: every decision made here records it. */
  private identity = '';
  private emitScheduled = false;
  private closed = false;

  private constructor(private readonly options: ClusterApprovalsOptions) {
    this.rest = options.connection.rest;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.collection = `/apis/${ORLOJ_GROUP}/${ORLOJ_VERSION}/namespaces/${encodeURIComponent(options.namespace)}/${TOOL_APPROVALS_PLURAL}`;
    this.holder = options.holder ?? process.env.POD_NAME ?? hostname();
  }

  /**
   * Checks that the cluster serves ToolApprovals in the namespace and that these credentials may
   * read them (one sentence saying what to do otherwise), then starts the watch unless told not to.
   */
  static async open(options: ClusterApprovalsOptions): Promise<ClusterApprovals> {
    const store = new ClusterApprovals(options);
    await store.rest.request('GET', store.collection, { query: { limit: 1 } }).catch((error: unknown) => {
      throw store.explain(error, 'list');
    });
    store.identity = await kubeIdentity(options.connection);
    if (options.watch !== false) {
      store.informer = new ResilientInformer<ToolApprovalObject>({
        kc: options.connection.kc,
        rest: store.rest,
        path: store.collection,
        logger: store.logger,
        onEvent: (event, object) => store.observed(event, object),
      });
      await store.informer.start();
      store.sweepLater();
    }
    return store;
  }

  hold(request: HoldRequest, options: HoldOptions = {}): Promise<ToolApproval> {
    let prepared: ReturnType<typeof prepareHold>;
    try {
      prepared = prepareHold(request, options.signal, this.closed, this.clock.now());
    } catch (error) {
      return Promise.reject(error);
    }
    const { approval, ttlMs } = prepared;
    return new Promise<ToolApproval>((resolve, reject) => {
      let finished = false;
      let cancelTimer = () => {};
      const onAbort = () => this.endHere(approval.metadata.name, canceledRecord(this.clock.now(), reasonOf(options.signal?.reason, 'the call was canceled')));
      const waiter: Waiter = {
        approval,
        request,
        finish: (record, live) => {
          if (finished) return;
          finished = true;
          this.waiters.delete(approval.metadata.name);
          cancelTimer();
          options.signal?.removeEventListener('abort', onAbort);
          const ended = withDecision(approval, record);
          // Expired and canceled approvals are nobody's to decide any more: they leave the cluster.
          if (record.phase === 'Expired' || record.canceled) this.remove(approval.metadata.name, waiter.uid);
          else this.pruneDecided();
          this.changed();
          try {
            concludeHold(approval, request, record, live && this.boundTo(live, waiter), this.options.currentPolicyVersion?.(), 'ToolApproval object');
            resolve(ended);
          } catch (error) {
            if (error instanceof AppError && error.step === 'binding') this.logger.warn('ToolApproval no longer matches its held call', { name: approval.metadata.name });
            reject(error);
          }
        },
      };
      const publish = async () => {
        for (let attempt = 0; ; attempt++) {
          this.waiters.set(approval.metadata.name, waiter);
          try {
            const created = await this.rest.request<ToolApprovalObject>('POST', this.collection, { body: this.objectFor(approval) });
            waiter.uid = created.metadata.uid;
            return;
          } catch (error) {
            this.waiters.delete(approval.metadata.name);
            if (!isConflict(error)) throw this.explain(error, 'create');
            if (attempt >= 4) throw new AppError('Internal', `Could not find a free ToolApproval name in namespace ${this.options.namespace}.`);
            approval.metadata.name = approvalName(request.agent, request.tool);
          }
        }
      };
      this.track(
        publish().then(
          () => {
            // Ended while its create was under way (the store closed): the object it made goes too.
            if (finished) return this.remove(approval.metadata.name, waiter.uid);
            if (this.closed) return this.endHere(approval.metadata.name, canceledRecord(this.clock.now(), 'Tooldeck stopped'));
            cancelTimer = this.clock.setTimeout(() => this.endHere(approval.metadata.name, { phase: 'Expired', decided_at: iso(this.clock.now()) }), ttlMs);
            options.signal?.addEventListener('abort', onAbort, { once: true });
            this.changed();
            options.onPending?.(approval);
            if (options.signal?.aborted) onAbort();
            else {
              // A decision may have been watched before the create answered.
              const live = this.informer?.get(approval.metadata.name, this.options.namespace);
              if (live) this.observed('update', live);
            }
          },
          (error: unknown) => {
            finished = true;
            reject(error instanceof AppError ? error : new AppError('Internal', `The call could not be held for approval: ${reasonOf(error)}`, { cause: error }));
          },
        ),
      );
    });
  }

  async list(): Promise<ToolApproval[]> {
    const objects = this.informer ? this.informer.list(this.options.namespace) : await this.listFromServer();
    return objects.flatMap((object) => this.readable(object) ?? []).sort(byInboxOrder);
  }

  async get(name: string): Promise<ToolApproval> {
    const checked = checkedName(name);
    const object = await this.fetch(checked);
    const approval = this.readable(object);
    if (!approval) throw new AppError('InvalidInput', `ToolApproval ${checked} in namespace ${this.options.namespace} is not a valid approval.`);
    return approval;
  }

  /**
   * Writes the decision to the status subresource, with the resourceVersion of the Pending object
   * read just before: a decision written meanwhile by anyone makes this one a conflict, never a
   * second decision. A 403 says who may decide. `decided_by` is always the user the API server
   * authenticates these credentials as; the name a caller offers is not what counts in a cluster.
   */
  async decide(name: string, verdict: ApprovalVerdict, _offeredDecider: string, comment?: string): Promise<ToolApproval> {
    const checked = checkedName(name);
    const decider = checkedDecider(this.identity);
    const text = checkedComment(comment);
    const current = await this.fetch(checked);
    const approval = this.readable(current);
    if (!approval) throw new AppError('InvalidInput', `ToolApproval ${checked} in namespace ${this.options.namespace} is not a valid approval.`);
    if (approval.status.phase !== 'Pending') throw notPending(checked, approval.status);
    const status: Partial<ToolApprovalStatus> = {
      phase: verdict === 'approve' ? 'Approved' : 'Denied',
      decision: verdict === 'approve' ? 'approved' : 'denied',
      decided_by: decider,
      decided_at: iso(this.clock.now()),
      ...(text ? { comment: text } : {}),
    };
    let patched: ToolApprovalObject;
    try {
      patched = await this.rest.request<ToolApprovalObject>('PATCH', `${this.collection}/${checked}/status`, {
        body: { metadata: { resourceVersion: current.metadata.resourceVersion }, status },
        contentType: CONTENT_TYPE.mergePatch,
      });
    } catch (error) {
      if (isConflict(error) || (isKubeApiError(error) && error.status === 422 && /cannot be decided again/.test(error.message))) {
        // Someone else's decision came first: say how it ended (or that it is being decided).
        const now = await this.fetch(checked).then((object) => this.readable(object));
        throw notPending(checked, now?.status ?? approval.status);
      }
      if (isNotFound(error)) throw gone(checked);
      throw this.explain(error, 'decide');
    }
    this.changed();
    return this.readable(patched) ?? approval;
  }

  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  /** Stops the watch; calls still held here end Denied (canceled: Tooldeck stopped), never run, and their approvals are deleted. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopSweeping();
    for (const name of [...this.waiters.keys()]) this.endHere(name, canceledRecord(this.clock.now(), 'Tooldeck stopped'));
    while (this.work.size) await Promise.allSettled([...this.work]);
    await this.informer?.stop();
    this.changes.clear();
  }

  /** Resolves once every request this store started has finished: for tests and orderly shutdown. */
  async settled(): Promise<void> {
    while (this.work.size) await Promise.allSettled([...this.work]);
  }

  /** Deletes Pending approvals nobody cleaned up well past their expiry (their replica died), and decided ones beyond the history kept. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const abandonedAfter = this.options.abandonedAfterMs ?? DEFAULT_ABANDONED_AFTER_MS;
    const objects = this.informer ? this.informer.list(this.options.namespace) : await this.listFromServer();
    for (const object of objects) {
      if (this.waiters.has(object.metadata.name)) continue;
      const approval = this.readable(object);
      if (approval?.status.phase === 'Expired' && now - Date.parse(approval.status.expires_at) >= abandonedAfter) this.remove(object.metadata.name, object.metadata.uid);
    }
    this.pruneDecided();
    await this.settled();
  }

  /** A watched change: wakes the call held here by its decision, or ends it when its object was deleted. */
  private observed(event: 'add' | 'update' | 'delete', object: ToolApprovalObject) {
    this.changed();
    if (event === 'delete') this.removing.delete(object.metadata.name);
    const waiter = this.waiters.get(object.metadata.name);
    if (!waiter || !waiter.uid || object.metadata.uid !== waiter.uid) return;
    if (event === 'delete') return waiter.finish(canceledRecord(this.clock.now(), `its ToolApproval ${object.metadata.name} was deleted before anyone decided`));
    const record = decisionOf(object);
    if (record) waiter.finish(record, object);
  }

  /**
   * Ends a call held here by its own clock or signal, unless the watch already brought a decision
   * (the decision, written first, is the one it ends by).
   */
  private endHere(name: string, record: DecisionRecord) {
    const waiter = this.waiters.get(name);
    if (!waiter) return;
    const live = this.informer?.get(name, this.options.namespace);
    const decided = live && live.metadata.uid === waiter.uid ? decisionOf(live) : undefined;
    if (decided) waiter.finish(decided, live);
    else waiter.finish(record);
  }

  /** The approval as the cluster holds it, for the binding check: only the object this replica made, with the digest of its arguments as they are now. */
  private boundTo(live: ToolApprovalObject, waiter: Waiter): ToolApproval | undefined {
    if (!waiter.uid || live.metadata.uid !== waiter.uid) return undefined;
    const approval = this.readable(live);
    if (!approval) return undefined;
    let digest: string;
    try {
      digest = approvalInputDigest(live.spec.input);
    } catch {
      return undefined;
    }
    // The annotation must agree with the arguments themselves: neither can stand in for the other.
    return digest === approval.binding.input_digest ? approval : undefined;
  }

  private objectFor(approval: ToolApproval): ToolApprovalObject {
    const { binding } = approval;
    return {
      apiVersion: `${ORLOJ_GROUP}/${ORLOJ_VERSION}`,
      kind: 'ToolApproval',
      metadata: {
        name: approval.metadata.name,
        annotations: {
          [APPROVAL_ANNOTATIONS.inputDigest]: binding.input_digest,
          [APPROVAL_ANNOTATIONS.policyVersion]: binding.policy_version,
          ...(binding.risk ? { [APPROVAL_ANNOTATIONS.risk]: binding.risk } : {}),
          [APPROVAL_ANNOTATIONS.holder]: this.holder,
        },
      },
      spec: approval.spec,
    };
  }

  /**
   * The object as Tooldeck's ToolApproval, or undefined (logged) when it is not one. Its expiry is
   * its creation (the API server's clock) plus its ttl; a Pending one past it reads Expired.
   */
  private readable(object: ToolApprovalObject): ToolApproval | undefined {
    // Objects come from whoever may create them: one without a spec is no approval.
    if (typeof object.spec !== 'object' || object.spec === null) return undefined;
    const annotations = object.metadata.annotations ?? {};
    const created = Date.parse(object.metadata.creationTimestamp ?? '') || this.clock.now();
    let ttlMs: number;
    try {
      ttlMs = parseDuration(object.spec.ttl ?? '10m');
    } catch {
      return undefined;
    }
    const expiresAt = object.status?.expires_at ?? iso(created + ttlMs);
    const phase = object.status?.phase ?? 'Pending';
    const status: ToolApprovalStatus = {
      ...object.status,
      phase: phase === 'Pending' && this.clock.now() >= Date.parse(expiresAt) ? 'Expired' : phase,
      expires_at: expiresAt,
    };
    const parsed = ToolApproval.safeParse({
      apiVersion: 'orloj.dev/v1',
      kind: 'ToolApproval',
      metadata: { name: object.metadata.name, created_at: iso(created) },
      spec: { ...object.spec, task_ref: object.spec.task_ref ?? '', operation_class: object.spec.operation_class ?? '', reason: object.spec.reason ?? '' },
      status,
      binding: {
        input_digest: annotations[APPROVAL_ANNOTATIONS.inputDigest] ?? '',
        policy_version: annotations[APPROVAL_ANNOTATIONS.policyVersion] ?? '',
        ...(annotations[APPROVAL_ANNOTATIONS.risk] ? { risk: annotations[APPROVAL_ANNOTATIONS.risk] } : {}),
      },
    });
    if (!parsed.success) this.logger.warn('ToolApproval skipped: not a valid approval', { name: object.metadata.name });
    return parsed.success ? parsed.data : undefined;
  }

  private async fetch(name: string): Promise<ToolApprovalObject> {
    try {
      return await this.rest.request<ToolApprovalObject>('GET', `${this.collection}/${name}`);
    } catch (error) {
      if (isNotFound(error)) throw notFound(name);
      throw this.explain(error, 'read');
    }
  }

  private async listFromServer(): Promise<ToolApprovalObject[]> {
    const items: ToolApprovalObject[] = [];
    let continueToken: string | undefined;
    do {
      const page = await this.rest
        .request<{ items: ToolApprovalObject[]; metadata?: { continue?: string } }>('GET', this.collection, { query: { limit: 500, continue: continueToken } })
        .catch((error: unknown) => {
          throw this.explain(error, 'list');
        });
      items.push(...page.items);
      continueToken = page.metadata?.continue || undefined;
    } while (continueToken);
    return items;
  }

  /** Deletes an ended approval (only the object this replica made, when it knows which); a failure is logged, never thrown at the call. */
  private remove(name: string, uid: string | undefined) {
    // Until the watch reports it gone, the cache still lists it: one delete per object, not one per prune.
    if (this.removing.has(name)) return;
    this.removing.add(name);
    void this.track(
      this.rest
        .request('DELETE', `${this.collection}/${name}`, uid ? { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid } } } : {})
        .catch((error: unknown) => {
          // Kept in `removing` after a delete until the watch reports the object gone; a failed one may be tried again.
          this.removing.delete(name);
          if (!isNotFound(error) && !isConflict(error)) this.logger.warn('ended ToolApproval not deleted', { name, error: reasonOf(error) });
        }),
    );
  }

  /**
   * Keeps the newest `keepDecided` decided approvals this replica held (from the watch's cache);
   * older ones are deleted. Each replica prunes its own, so no two delete the same object.
   */
  private pruneDecided() {
    if (!this.informer) return;
    const keep = this.options.keepDecided ?? DEFAULT_KEEP_DECIDED;
    const decided = this.informer
      .list(this.options.namespace)
      .filter((object) => (object.status?.phase === 'Approved' || object.status?.phase === 'Denied') && object.metadata.annotations?.[APPROVAL_ANNOTATIONS.holder] === this.holder)
      .sort((a, b) => (b.status?.decided_at ?? '').localeCompare(a.status?.decided_at ?? ''));
    for (const object of decided.slice(keep)) this.remove(object.metadata.name, object.metadata.uid);
  }

  /** Sweeps now and every SWEEP_EVERY_MS until closed. */
  private sweepLater() {
    let cancel = () => {};
    const run = () => {
      void this.sweep().catch((error: unknown) => this.logger.warn('approvals sweep failed', { error: reasonOf(error) }));
      cancel = this.clock.setTimeout(run, SWEEP_EVERY_MS);
    };
    cancel = this.clock.setTimeout(run, 0);
    this.stopSweeping = () => cancel();
  }

  /** One sentence for a failed request: which namespace, what these credentials may not do, or that the CRD is missing. */
  private explain(error: unknown, action: 'list' | 'read' | 'create' | 'decide'): AppError {
    const where = `in namespace ${this.options.namespace} on ${this.rest.server}`;
    if (isKubeApiError(error)) {
      if (error.status === 404 && action === 'list') {
        return new AppError('NotFound', `The cluster serves no ToolApprovals ${where}: install the toolapprovals.orloj.dev CRD with \`tooldeck kube install --gateway\`.`, { cause: error });
      }
      if (error.status === 403) {
        const what = action === 'decide' ? 'decide ToolApprovals (patch toolapprovals/status; bind the tooldeck-approver Role)' : `${action} ToolApprovals`;
        return new AppError('Unauthorized', `These credentials may not ${what} ${where}: ${error.message}`, { cause: error });
      }
      if (error.status === 401) return new AppError('Unauthorized', `The cluster at ${this.rest.server} refused the credentials.`, { cause: error });
      if (error.status === 0) return new AppError('ConnectionFailed', error.message, { cause: error });
    }
    return new AppError('Internal', `Could not ${action} ToolApprovals ${where}: ${reasonOf(error)}`, { cause: error });
  }

  private changed() {
    if (this.emitScheduled || this.closed) return;
    this.emitScheduled = true;
    setImmediate(() => {
      this.emitScheduled = false;
      this.changes.emit();
    });
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.work.add(promise);
    void promise.finally(() => this.work.delete(promise)).catch(() => undefined);
    return promise;
  }
}

/** How a watched object ended, if a decision was written. */
function decisionOf(object: ToolApprovalObject): DecisionRecord | undefined {
  const status = object.status;
  if (status?.phase !== 'Approved' && status?.phase !== 'Denied' && status?.phase !== 'Expired') return undefined;
  return {
    phase: status.phase,
    decided_at: status.decided_at ?? new Date().toISOString(),
    ...(status.decided_by !== undefined ? { decided_by: status.decided_by } : {}),
    ...(status.comment !== undefined ? { comment: status.comment } : {}),
  };
}


function gone(name: string): AppError {
  return new AppError('AlreadyExists', `Approval ${name} is no longer Pending: it expired or was canceled, and its ToolApproval was removed.`, { step: 'decided' });
}

/**
 * Who decides, as `decided_by` records it: the user the API server authenticates these credentials
 * as (a SelfSubjectReview), else the kubeconfig's user name.
 */
export async function kubeIdentity(connection: { kc: KubeConfig; rest: KubeRest }): Promise<string> {
  try {
    const review = await connection.rest.request<{ status?: { userInfo?: { username?: string } } }>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    const username = review.status?.userInfo?.username;
    if (username) return username;
  } catch {
    // Older API servers, or credentials the review does not cover: the kubeconfig names the user.
  }
  return connection.kc.getCurrentUser()?.name ?? 'kubernetes-user';
}
