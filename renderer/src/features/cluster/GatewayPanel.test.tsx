import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { GatewayReplicasStatus } from '../../../../shared/kubeApi';
import { stubLayout } from '../history/testing/stubLayout';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { GatewayPanel } from './GatewayPanel';

stubLayout();

const NOW = Date.parse('2026-11-28T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1_000).toISOString();

/** As readGatewayReplicas returns it for two replicas: one read, one whose proxy read was forbidden. */
const twoReplicas: GatewayReplicasStatus = GatewayReplicasStatus.parse({
  deployments: [{ namespace: 'tooldeck-system', name: 'tooldeck-gateway', replicas: 2, readyReplicas: 2, image: 'tooldeck/operator:0.1.0' }],
  replicas: [
    {
      namespace: 'tooldeck-system',
      pod: 'tooldeck-gateway-6f7c9-abcde',
      ready: true,
      phase: 'Running',
      startedAt: ago(3_600),
      traffic: { calls: 1_234, errors: 7, held: 2, rateLimited: 3 },
      agents: [
        { agent: 'builder', calls: 1_200, errors: 5, held: 2, approved: 9, refused: 1, rateLimited: 0 },
        { agent: 'reader', calls: 34, errors: 2, held: 0, approved: 0, refused: 0, rateLimited: 3 },
      ],
    },
    {
      namespace: 'tooldeck-system',
      pod: 'tooldeck-gateway-6f7c9-fghij',
      ready: true,
      phase: 'Running',
      startedAt: ago(3_500),
      agents: [],
      problem: 'Reading its metrics is forbidden: pods "tooldeck-gateway-6f7c9-fghij" is forbidden: User "alice" cannot get resource "pods/proxy" (it needs get on pods/proxy in namespace tooldeck-system).',
    },
  ],
  problems: [],
});

describe('GatewayPanel', () => {
  it('shows each replica’s calls, errors and held calls, and the same per agent under it', async () => {
    renderWithBackend(<GatewayPanel now={NOW} />, new FakeBackend().answer('kube.gateway', () => twoReplicas));
    const panel = await screen.findByRole('region', { name: 'Gateway replicas' });
    const table = await within(panel).findByRole('table', { name: 'Gateway traffic per replica' });
    const first = within(table).getByRole('row', { name: /^Replica tooldeck-gateway-6f7c9-abcde/ });
    expect(within(first).getByLabelText('Calls')).toHaveTextContent('1,234');
    expect(within(first).getByLabelText('Errors')).toHaveTextContent('7');
    expect(within(first).getByLabelText('Held now')).toHaveTextContent('2');
    expect(within(first).getByLabelText('Approved / refused')).toHaveTextContent('9 / 1');
    expect(within(first).getByLabelText('Rate-limited')).toHaveTextContent('3');
    expect(first).toHaveTextContent('up 60m');
    const builder = within(table).getByRole('row', { name: 'Agent builder on tooldeck-gateway-6f7c9-abcde' });
    expect(within(builder).getByLabelText('Calls')).toHaveTextContent('1,200');
    expect(within(builder).getByLabelText('Held now')).toHaveTextContent('2');
    const reader = within(table).getByRole('row', { name: 'Agent reader on tooldeck-gateway-6f7c9-abcde' });
    expect(within(reader).getByLabelText('Rate-limited')).toHaveTextContent('3');
    expect(within(panel).getByText('Deployment tooldeck-system/tooldeck-gateway: 2/2 ready · tooldeck/operator:0.1.0')).toBeInTheDocument();
  });

  it('says why a replica could not be read, in its row, and still shows the others', async () => {
    renderWithBackend(<GatewayPanel now={NOW} />, new FakeBackend().answer('kube.gateway', () => twoReplicas));
    const second = await screen.findByRole('row', { name: /^Replica tooldeck-gateway-6f7c9-fghij/ });
    expect(within(second).getByLabelText('Problem')).toHaveTextContent('Reading its metrics is forbidden');
    expect(within(second).getByLabelText('Problem')).toHaveTextContent('pods/proxy in namespace tooldeck-system');
    expect(within(second).queryByLabelText('Calls')).toBeNull();
    expect(screen.getByRole('row', { name: /^Replica tooldeck-gateway-6f7c9-abcde/ })).toBeInTheDocument();
  });

  it('reads the replicas again on Refresh', async () => {
    let calls = 10;
    const backend = new FakeBackend().answer('kube.gateway', () => ({ ...twoReplicas, replicas: [{ ...twoReplicas.replicas[0]!, traffic: { ...twoReplicas.replicas[0]!.traffic!, calls: ++calls } }] }));
    renderWithBackend(<GatewayPanel now={NOW} />, backend);
    const row = await screen.findByRole('row', { name: /^Replica tooldeck-gateway-6f7c9-abcde/ });
    expect(within(row).getByLabelText('Calls')).toHaveTextContent('11');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Refresh the gateway replicas' })).toBeEnabled());
    fireEvent.click(screen.getByRole('button', { name: 'Refresh the gateway replicas' }));
    await waitFor(() => expect(within(screen.getByRole('row', { name: /^Replica tooldeck-gateway-6f7c9-abcde/ })).getByLabelText('Calls')).toHaveTextContent('12'));
    expect(backend.callsTo('kube.gateway').length).toBeGreaterThanOrEqual(2);
  });

  it('explains how to install the gateway when none runs', async () => {
    renderWithBackend(<GatewayPanel now={NOW} />, new FakeBackend().answer('kube.gateway', () => ({ deployments: [], replicas: [], problems: [] })));
    expect(await screen.findByText(/No gateway runs in this cluster/)).toBeInTheDocument();
    expect(screen.getByText('tooldeck kube install --gateway')).toBeInTheDocument();
  });

  it('names what could not be listed', async () => {
    renderWithBackend(<GatewayPanel now={NOW} />, new FakeBackend().answer('kube.gateway', () => ({ deployments: [], replicas: [], problems: ['Cannot list gateway Deployments: deployments.apps is forbidden'] })));
    expect(await screen.findByText('Cannot list gateway Deployments: deployments.apps is forbidden')).toBeInTheDocument();
  });
});
