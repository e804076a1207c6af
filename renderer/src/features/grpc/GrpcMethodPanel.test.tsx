import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { GrpcCallResult, GrpcMethodView } from '../../../../shared/grpc';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { outcomeOf } from '../invoke/testing/fixtures';
import { GrpcMethodPanel } from './GrpcMethodPanel';

const schema = { type: 'object', title: 'CountRequest', properties: { to: { type: 'integer', title: 'to' } } };

function method(overrides: Partial<GrpcMethodView> = {}): GrpcMethodView {
  return {
    name: 'explorer.v1.Explorer/Count',
    service: 'explorer.v1.Explorer',
    method: 'Count',
    requestType: 'explorer.v1.CountRequest',
    responseType: 'explorer.v1.CountReply',
    clientStreaming: false,
    serverStreaming: true,
    requestSchema: schema,
    responseSchema: { type: 'object' },
    registryName: 'grpc:peer.explorer.v1.Explorer/Count',
    ...overrides,
  };
}

const call = (result: Partial<GrpcCallResult>): GrpcCallResult => ({ status: { code: 0, name: 'OK', details: '' }, headers: { 'content-type': 'application/grpc' }, trailers: { 'x-count': '2' }, ...result });

describe('GrpcMethodPanel', () => {
  it('shows streamed messages as they arrive, then the status, headers and trailers', async () => {
    const backend = new FakeBackend();
    renderWithBackend(<GrpcMethodPanel method={method()} />, backend);
    await userEvent.click(screen.getByRole('button', { name: 'Call' }));
    const subscription = backend.subscriptionsTo('tools.invokeStream')[0]!;
    expect(subscription.input).toMatchObject({ name: 'grpc:peer.explorer.v1.Explorer/Count' });
    subscription.emit({ type: 'progress', at: 1, progress: 1, message: '{"n":1}' });
    subscription.emit({ type: 'progress', at: 2, progress: 2, message: '{"n":2}' });
    const streamed = screen.getByLabelText('Streamed messages');
    expect(streamed).toHaveTextContent('#1{"n":1}');
    expect(streamed).toHaveTextContent('#2{"n":2}');
    expect(screen.getByRole('status')).toHaveTextContent('2 messages so far');
    subscription.emit({ type: 'outcome', outcome: outcomeOf({ content: [], structuredContent: call({ responses: [{ n: 1 }, { n: 2 }] }) }) });
    expect(screen.getByLabelText('Status OK')).toHaveTextContent('OK (0)');
    expect(within(screen.getByLabelText('Trailers')).getByText('x-count')).toBeInTheDocument();
    expect(within(screen.getByLabelText('Headers')).getByText('application/grpc')).toBeInTheDocument();
  });

  it('cancels by unsubscribing and keeps what arrived', async () => {
    const backend = new FakeBackend();
    renderWithBackend(<GrpcMethodPanel method={method()} />, backend);
    await userEvent.click(screen.getByRole('button', { name: 'Call' }));
    const subscription = backend.subscriptionsTo('tools.invokeStream')[0]!;
    subscription.emit({ type: 'progress', at: 1, progress: 1, message: '{"n":1}' });
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(subscription.closed).toBe(true);
    expect(screen.getByRole('status')).toHaveTextContent('1 message received');
    expect(screen.getByLabelText('Streamed messages')).toHaveTextContent('{"n":1}');
  });

  it('shows a failure with its code and step, and a method a form cannot call as such', async () => {
    const backend = new FakeBackend();
    const { unmount } = renderWithBackend(<GrpcMethodPanel method={method({ serverStreaming: false, method: 'Echo', name: 'explorer.v1.Explorer/Echo' })} />, backend);
    await userEvent.click(screen.getByRole('button', { name: 'Call' }));
    backend.subscriptionsTo('tools.invokeStream')[0]!.emit({ type: 'outcome', outcome: outcomeOf(undefined, { error: { code: 'ConnectionFailed', message: 'cannot open a TCP connection', retryable: true, step: 'tcp' } }) });
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('ConnectionFailed');
    expect(alert).toHaveTextContent('tcp');
    unmount();
    renderWithBackend(<GrpcMethodPanel method={method({ clientStreaming: true, unusable: 'client-streaming and bidirectional methods cannot be called from a form', registryName: undefined })} />, new FakeBackend());
    expect(screen.getByText(/cannot be called from a form/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Call' })).not.toBeInTheDocument();
  });
});
