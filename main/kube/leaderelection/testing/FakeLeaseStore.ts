import { KubeApiError } from '../../KubeApiError';
import type { LeaseLock, LeaseObject } from '../LeaseLock';

/**
 * An in-memory stand-in for the Lease API of one apiserver, with its optimistic concurrency
 * (resourceVersion checks, 409 on a stale update or a second create). Each elector gets its own
 * `FakeLeaseLock`, which a test can cut off from the store or make race against another writer.
 */
export class FakeLeaseStore {
  lease?: LeaseObject;
  private version = 0;
  readonly requests: Array<{ who: string; op: 'get' | 'create' | 'update' }> = [];

  lockFor(who: string, namespace = 'ops', name = 'tooldeck-operator'): FakeLeaseLock {
    return new FakeLeaseLock(this, who, namespace, name);
  }

  /** Another writer (kubectl, a racing candidate) changes the Lease. */
  writeDirectly(change: (lease: LeaseObject) => LeaseObject) {
    if (!this.lease) throw new Error('no lease');
    const changed = change(structuredClone(this.lease));
    this.lease = { ...changed, metadata: { ...changed.metadata, resourceVersion: String(++this.version) } };
  }

  create(lease: LeaseObject): LeaseObject {
    if (this.lease) throw new KubeApiError(409, 'AlreadyExists', `leases.coordination.k8s.io "${lease.metadata.name}" already exists`);
    this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.version), uid: 'lease-uid' } };
    return structuredClone(this.lease);
  }

  update(lease: LeaseObject): LeaseObject {
    if (!this.lease) throw new KubeApiError(404, 'NotFound', 'not found');
    if (lease.metadata.resourceVersion !== this.lease.metadata.resourceVersion)
      throw new KubeApiError(409, 'Conflict', 'Operation cannot be fulfilled on leases.coordination.k8s.io: the object has been modified; please apply your changes to the latest version and try again');
    this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.version), uid: 'lease-uid' } };
    return structuredClone(this.lease);
  }
}

export class FakeLeaseLock implements LeaseLock {
  /** While true every call fails as an unreachable apiserver would. */
  down = false;
  /** Runs before this lock's next write reaches the store (e.g. a competing write that wins the race). */
  beforeWrite?: () => void;

  constructor(
    private readonly store: FakeLeaseStore,
    private readonly who: string,
    readonly namespace: string,
    readonly name: string,
  ) {}

  async get(): Promise<LeaseObject | undefined> {
    this.call('get');
    return this.store.lease ? structuredClone(this.store.lease) : undefined;
  }

  async create(lease: LeaseObject): Promise<LeaseObject> {
    this.call('create');
    return this.store.create(lease);
  }

  async update(lease: LeaseObject): Promise<LeaseObject> {
    this.call('update');
    return this.store.update(lease);
  }

  private call(op: 'get' | 'create' | 'update') {
    if (this.down) throw new KubeApiError(0, 'Unreachable', 'Cannot reach https://apiserver: connect ECONNREFUSED');
    this.store.requests.push({ who: this.who, op });
    if (op !== 'get' && this.beforeWrite) {
      const interfere = this.beforeWrite;
      this.beforeWrite = undefined;
      interfere();
    }
  }
}
