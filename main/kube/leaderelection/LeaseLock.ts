import { CONTENT_TYPE, type KubeRest } from '../KubeRest';
import { isNotFound } from '../KubeApiError';

/** coordination.k8s.io/v1 LeaseSpec; times are MicroTime (RFC 3339 with microseconds). */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface LeaseObject {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: LeaseSpec;
}

/**
 * The Lease the elector campaigns for. Writes are optimistic: `update` sends the resourceVersion it
 * read and fails with a 409 when someone wrote in between; `create` fails with a 409 when the
 * Lease already exists.
 */
export interface LeaseLock {
  readonly namespace: string;
  readonly name: string;
  get(timeoutMs: number): Promise<LeaseObject | undefined>;
  create(lease: LeaseObject, timeoutMs: number): Promise<LeaseObject>;
  update(lease: LeaseObject, timeoutMs: number): Promise<LeaseObject>;
}

export function leasePath(namespace: string, name?: string): string {
  const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** The Lease API on a cluster connection. */
export class KubeLeaseLock implements LeaseLock {
  constructor(
    private readonly rest: KubeRest,
    readonly namespace: string,
    readonly name: string,
    private readonly fieldManager: string,
  ) {}

  get(timeoutMs: number): Promise<LeaseObject | undefined> {
    return this.rest.request<LeaseObject>('GET', leasePath(this.namespace, this.name), { timeoutMs }).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
  }

  create(lease: LeaseObject, timeoutMs: number): Promise<LeaseObject> {
    return this.rest.request<LeaseObject>('POST', leasePath(this.namespace), { body: lease, timeoutMs, query: { fieldManager: this.fieldManager } });
  }

  update(lease: LeaseObject, timeoutMs: number): Promise<LeaseObject> {
    return this.rest.request<LeaseObject>('PUT', leasePath(this.namespace, this.name), { body: lease, timeoutMs, contentType: CONTENT_TYPE.json, query: { fieldManager: this.fieldManager } });
  }
}

/** MicroTime as the apiserver writes it: six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
