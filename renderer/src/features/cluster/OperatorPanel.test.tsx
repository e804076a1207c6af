import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { OperatorStatus } from '../../../../shared/kubeApi';
import { stubLayout } from '../history/testing/stubLayout';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { OperatorPanel } from './OperatorPanel';

stubLayout();

const NOW = Date.parse('2026-11-25T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1_000).toISOString();

const running: OperatorStatus = {
  leases: [
    {
      namespace: 'tooldeck-system',
      name: 'tooldeck-operator',
      holder: 'tooldeck-operator-7d9f-abcde',
      held: true,
      acquireTime: ago(600),
      renewTime: ago(1),
      leaseDurationSeconds: 15,
      transitions: 3,
      renewals: 298,
      version: '0.1.0',
      lastReconcile: ago(42),
      failingKeys: 1,
    },
  ],
  deployments: [{ namespace: 'tooldeck-system', name: 'tooldeck-operator', replicas: 2, readyReplicas: 2, image: 'tooldeck/operator:0.1.0' }],
  events: [
    { namespace: 'tools', type: 'Warning', reason: 'ReconcileFailed', note: 'tools/list for tools/search failed: 503', regarding: 'LanguageTool tools/search', instance: 'tooldeck-operator-7d9f-abcde', time: ago(30), count: 4 },
    { namespace: 'tools', type: 'Normal', reason: 'Reconciled', note: 'created Deployment tools/search', regarding: 'LanguageTool tools/search', time: ago(300), count: 1 },
  ],
  problems: ['1 object failing to reconcile (see the Warning events)'],
};

describe('OperatorPanel', () => {
  it('shows the leader, how long it has held the lease and renewed it, replicas, last reconcile, events and problems', async () => {
    renderWithBackend(<OperatorPanel now={NOW} />, new FakeBackend().answer('kube.operator', () => running));
    const panel = await screen.findByRole('region', { name: 'In-cluster operator' });
    expect(await within(panel).findByLabelText('Leader')).toHaveTextContent('tooldeck-operator-7d9f-abcde');
    expect(within(panel).getByText('Leading')).toBeInTheDocument();
    expect(within(panel).getByLabelText('Held for')).toHaveTextContent('10m');
    expect(within(panel).getByLabelText('Renewals')).toHaveTextContent('298');
    expect(within(panel).getByLabelText('Handovers')).toHaveTextContent('3');
    expect(within(panel).getByLabelText('Replicas ready')).toHaveTextContent('2/2');
    expect(within(panel).getByLabelText('Last reconcile')).toHaveTextContent('42s ago');
    expect(within(panel).getByText('1 object failing to reconcile (see the Warning events)')).toBeInTheDocument();
    const events = within(panel).getByRole('table', { name: 'Operator events' });
    const warning = within(events).getAllByRole('row')[1]!;
    expect(warning).toHaveTextContent('Warning');
    expect(warning).toHaveTextContent('ReconcileFailed ×4');
    expect(warning).toHaveTextContent('LanguageTool tools/search');
  });

  it('says when the lease expired, i.e. nobody reconciles', async () => {
    const expired: OperatorStatus = { ...running, leases: [{ ...running.leases[0]!, held: false, renewTime: ago(90) }], problems: ['Lease tooldeck-system/tooldeck-operator expired: tooldeck-operator-7d9f-abcde last renewed it 90 s ago, so no replica is reconciling'] };
    renderWithBackend(<OperatorPanel now={NOW} />, new FakeBackend().answer('kube.operator', () => expired));
    expect(await screen.findByText('Lease expired')).toBeInTheDocument();
    expect(screen.getByText(/expired: tooldeck-operator-7d9f-abcde last renewed it 90 s ago/)).toBeInTheDocument();
  });

  it('explains how to install one when none runs', async () => {
    renderWithBackend(<OperatorPanel now={NOW} />, new FakeBackend().answer('kube.operator', () => ({ leases: [], deployments: [], events: [], problems: [] })));
    expect(await screen.findByText(/No operator runs in this cluster/)).toBeInTheDocument();
    expect(screen.getByText('tooldeck kube install')).toBeInTheDocument();
  });
});
