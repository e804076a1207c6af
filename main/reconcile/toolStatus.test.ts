import { describe, expect, it } from 'vitest';
import type { LanguageToolStatus } from '../../shared/kube';
import { computeToolStatus, needsDiscovery, type WorkloadState } from './toolStatus';

const now = () => new Date('2026-01-01T00:00:00Z');
const available: WorkloadState = { state: 'available', rolloutComplete: true, message: '1/1 replicas ready' };
const tools = [{ name: 'echo', inputSchema: { type: 'object' } }];

describe('tool status', () => {
  it('is Pending until the workload is available, then discovers once and is Running', () => {
    const pending = computeToolStatus(undefined, { generation: 1, endpoint: 'http://e', workload: { state: 'waiting', reason: 'DeploymentUnavailable', message: '0/1' } }, now);
    expect(pending).toMatchObject({ phase: 'Pending', endpoint: 'http://e', observedGeneration: 1 });
    expect(needsDiscovery(pending, 1, available)).toBe(true);

    const running = computeToolStatus(pending, { generation: 1, endpoint: 'http://e', workload: available, discovery: { ok: true, tools } }, now);
    expect(running).toMatchObject({ phase: 'Running', toolSchemas: tools, availableTools: ['echo'] });
    expect(needsDiscovery(running, 1, available)).toBe(false);
    // Same observation, same status: nothing to write.
    expect(computeToolStatus(running, { generation: 1, endpoint: 'http://e', workload: available }, now)).toEqual(running);
  });

  it('is Updating while a new generation rolls out and discovers again when it is done', () => {
    const running: LanguageToolStatus = computeToolStatus(undefined, { generation: 1, workload: available, discovery: { ok: true, tools } }, now);
    const rolling: WorkloadState = { state: 'available', rolloutComplete: false, message: '1/2' };
    expect(needsDiscovery(running, 2, rolling)).toBe(false);
    expect(computeToolStatus(running, { generation: 2, workload: rolling }, now)).toMatchObject({ phase: 'Updating', observedGeneration: 2 });
    expect(needsDiscovery(running, 2, available)).toBe(true);
  });

  it('is Failed when the server answers discovery wrongly, and Pending while it cannot be reached', () => {
    expect(computeToolStatus(undefined, { generation: 1, workload: available, discovery: { ok: false, permanent: true, message: 'Method not found' } }, now)).toMatchObject({
      phase: 'Failed',
      conditions: expect.arrayContaining([expect.objectContaining({ type: 'Discovered', status: 'False', reason: 'DiscoveryFailed' })]),
    });
    expect(computeToolStatus(undefined, { generation: 1, workload: available, discovery: { ok: false, permanent: false, message: '503' } }, now).phase).toBe('Pending');
  });
});
