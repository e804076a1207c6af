import { describe, expect, it } from 'vitest';
import type { LeaseObject } from '../leaderelection/LeaseLock';
import { leaseState, operatorCovering, OPERATOR_ANNOTATIONS } from './operatorLease';

const NOW = Date.parse('2026-11-25T12:00:00Z');

function lease(spec: LeaseObject['spec'], annotations: Record<string, string> = {}): LeaseObject {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'tooldeck-operator', namespace: 'tooldeck-system', annotations }, spec };
}

describe('operator leases', () => {
  it('reads the holder, whether the lease is still held, and what the leader wrote on it', () => {
    const state = leaseState(
      lease(
        { holderIdentity: 'pod-a', leaseDurationSeconds: 15, acquireTime: '2026-11-25T11:50:00.000000Z', renewTime: '2026-11-25T11:59:58.000000Z', leaseTransitions: 2 },
        { [OPERATOR_ANNOTATIONS.namespaces]: 'a,b', [OPERATOR_ANNOTATIONS.renewals]: '297', [OPERATOR_ANNOTATIONS.failing]: '1', [OPERATOR_ANNOTATIONS.version]: '0.1.0' },
      ),
      NOW,
    );
    expect(state).toMatchObject({ holder: 'pod-a', held: true, transitions: 2, renewals: 297, failingKeys: 1, scope: ['a', 'b'], version: '0.1.0' });
  });

  it('a lease not renewed within its duration, or released, is not held', () => {
    expect(leaseState(lease({ holderIdentity: 'pod-a', leaseDurationSeconds: 15, renewTime: '2026-11-25T11:59:40.000000Z' }), NOW).held).toBe(false);
    expect(leaseState(lease({ holderIdentity: '', leaseDurationSeconds: 1, renewTime: '2026-11-25T12:00:00.000000Z' }), NOW)).toMatchObject({ held: false });
    expect(leaseState(lease({ holderIdentity: '' }), NOW).holder).toBeUndefined();
  });

  it('an operator covers the namespaces of its scope, all of them without one, and any when the console reconciles everything', () => {
    const scoped = leaseState(lease({ holderIdentity: 'pod-a', leaseDurationSeconds: 15, renewTime: '2026-11-25T11:59:59.000000Z' }, { [OPERATOR_ANNOTATIONS.namespaces]: 'tools' }), NOW);
    const all = leaseState(lease({ holderIdentity: 'pod-b', leaseDurationSeconds: 15, renewTime: '2026-11-25T11:59:59.000000Z' }, { [OPERATOR_ANNOTATIONS.namespaces]: '*' }), NOW);
    expect(operatorCovering([scoped], 'tools')?.holder).toBe('pod-a');
    expect(operatorCovering([scoped], 'other')).toBeUndefined();
    expect(operatorCovering([scoped], undefined)?.holder).toBe('pod-a');
    expect(operatorCovering([all], 'anything')?.holder).toBe('pod-b');
    expect(operatorCovering([{ ...all, held: false }], 'anything')).toBeUndefined();
  });
});
