import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { PendingInteraction } from '../../../../shared/mcp';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { InteractionsHost } from './InteractionsHost';

const pendingPath = 'mcp.pendingInteractions';

function backendWith(pending: PendingInteraction[]) {
  return new FakeBackend().onSubscribe(pendingPath, (subscription) => subscription.emit(pending)).answer('mcp.answerInteraction', () => undefined);
}

const elicitation: PendingInteraction = {
  id: 'e1',
  server: 'travel',
  at: 2,
  kind: 'elicitation',
  mode: 'form',
  message: 'Where should we send the tickets?',
  requestedSchema: {
    type: 'object',
    properties: { email: { type: 'string', title: 'Email', format: 'email' }, seats: { type: 'integer', title: 'Seats', default: 2, minimum: 1 } },
    required: ['email'],
  },
};

describe('InteractionsHost', () => {
  it('answers a form elicitation with what the operator entered', async () => {
    const user = userEvent.setup();
    const backend = backendWith([elicitation]);
    renderWithBackend(<InteractionsHost />, backend);

    const dialog = await screen.findByRole('dialog', { name: /travel asks for input/ });
    expect(within(dialog).getByText('Where should we send the tickets?')).toBeInTheDocument();
    const accept = within(dialog).getByRole('button', { name: 'Accept' });
    expect(accept).toBeDisabled();

    await user.type(within(dialog).getByRole('textbox', { name: /^Email/ }), 'ada@example.com');
    await waitFor(() => expect(accept).toBeEnabled());
    await user.click(accept);

    await waitFor(() => expect(backend.callsTo('mcp.answerInteraction')).toEqual([{ id: 'e1', answer: { kind: 'elicitation', action: 'accept', content: { email: 'ada@example.com', seats: 2 } } }]));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('shows the oldest request first and declines it', async () => {
    const user = userEvent.setup();
    const later: PendingInteraction = { ...elicitation, id: 'e2', at: 5, server: 'billing', message: 'Later question' };
    const backend = backendWith([later, elicitation]);
    renderWithBackend(<InteractionsHost />, backend);

    const dialog = await screen.findByRole('dialog', { name: /travel asks for input/ });
    expect(within(dialog).getByText('1 of 2')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Decline' }));
    await waitFor(() => expect(backend.callsTo('mcp.answerInteraction')).toEqual([{ id: 'e1', answer: { kind: 'elicitation', action: 'decline' } }]));
    expect(await screen.findByRole('dialog', { name: /billing asks for input/ })).toBeInTheDocument();
  });

  it('shows a URL elicitation as a link that opens a new tab and reports Done', async () => {
    const user = userEvent.setup();
    const backend = backendWith([{ id: 'u1', server: 'auth', at: 1, kind: 'elicitation', mode: 'url', message: 'Sign in to continue', url: 'https://login.example.com/start?x=1' }]);
    renderWithBackend(<InteractionsHost />, backend);

    const dialog = await screen.findByRole('dialog', { name: /auth asks for input/ });
    const link = within(dialog).getByRole('link', { name: /login\.example\.com/ });
    expect(link).toHaveAttribute('href', 'https://login.example.com/start?x=1');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noreferrer noopener');
    await user.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(backend.callsTo('mcp.answerInteraction')).toEqual([{ id: 'u1', answer: { kind: 'elicitation', action: 'accept' } }]));
  });

  it('shows a sampling request and sends the operator reply', async () => {
    const user = userEvent.setup();
    const backend = backendWith([
      {
        id: 's1',
        server: 'writer',
        at: 1,
        kind: 'sampling',
        systemPrompt: 'You are terse.',
        maxTokens: 50,
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize the plot of Hamlet.' } }],
      },
    ]);
    renderWithBackend(<InteractionsHost />, backend);

    const dialog = await screen.findByRole('dialog', { name: /writer asks for a model reply/ });
    expect(within(dialog).getByText('You are terse.')).toBeInTheDocument();
    expect(within(within(dialog).getByRole('list', { name: 'Messages' })).getByText('Summarize the plot of Hamlet.')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Send' })).toBeDisabled();

    await user.type(within(dialog).getByRole('textbox', { name: 'Reply' }), 'A prince hesitates.');
    await user.click(within(dialog).getByRole('button', { name: 'Send' }));
    await waitFor(() =>
      expect(backend.callsTo('mcp.answerInteraction')).toEqual([{ id: 's1', answer: { kind: 'sampling', action: 'reply', text: 'A prince hesitates.', model: 'operator' } }]),
    );
  });

  it('keeps the request open and says so when the answer is not delivered', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend()
      .onSubscribe(pendingPath, (subscription) => subscription.emit([elicitation]))
      .answer('mcp.answerInteraction', () => {
        throw { code: 'NotFound', message: 'That request already ended', retryable: false };
      });
    renderWithBackend(<InteractionsHost />, backend);
    const dialog = await screen.findByRole('dialog', { name: /travel asks for input/ });
    await user.click(within(dialog).getByRole('button', { name: 'Decline' }));
    expect(await within(dialog).findByText('That request already ended')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: /travel asks for input/ })).toBeInTheDocument();
  });

  it('answers sampling with a tool call when the server offers tools (SEP-1577), checking the input against the tool schema', async () => {
    const user = userEvent.setup();
    const sampling: PendingInteraction = {
      id: 's9',
      server: 'planner',
      at: 1,
      kind: 'sampling',
      messages: [{ role: 'user', content: { type: 'text', text: 'Plan a day in Oslo.' } }],
      tools: [{ name: 'get_weather', description: 'The weather in a city today', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
      toolChoice: { mode: 'auto' },
      relatedTaskId: 'task-42',
    };
    const backend = backendWith([sampling]);
    renderWithBackend(<InteractionsHost />, backend);
    const dialog = await screen.findByRole('dialog', { name: /planner asks for a model reply/ });
    expect(dialog).toHaveTextContent('task task-42');
    await user.click(within(dialog).getByRole('radio', { name: 'Call a tool' }));
    const input = within(dialog).getByRole('textbox', { name: 'Tool input (JSON)' });
    const call = within(dialog).getByRole('button', { name: 'Call the tool' });
    await waitFor(() => expect(call).toBeDisabled());
    await user.clear(input);
    await user.click(input);
    await user.paste('{"city":"Oslo"}');
    await waitFor(() => expect(call).toBeEnabled());
    await user.click(call);
    await waitFor(() =>
      expect(backend.callsTo('mcp.answerInteraction')).toEqual([{ id: 's9', answer: { kind: 'sampling', action: 'reply', text: '', model: 'operator', toolUse: { name: 'get_weather', input: { city: 'Oslo' } } } }]),
    );
  });

  it('shows where a URL-mode elicitation leads, and does not offer an address that is not a web page', async () => {
    const url: PendingInteraction = { id: 'u1', server: 'billing', at: 1, kind: 'elicitation', mode: 'url', message: 'Confirm the payment', url: 'https://pay.example.com/confirm?id=7', elicitationId: 'el-7' };
    renderWithBackend(<InteractionsHost />, backendWith([url]));
    const dialog = await screen.findByRole('dialog', { name: /billing asks for input/ });
    expect(dialog).toHaveTextContent('Open this page on pay.example.com');
    expect(within(dialog).getByRole('link', { name: /pay\.example\.com\/confirm/ })).toHaveAttribute('rel', 'noreferrer noopener');
  });

  it('refuses to link a javascript: address from a URL-mode elicitation', async () => {
    const url: PendingInteraction = { id: 'u2', server: 'billing', at: 1, kind: 'elicitation', mode: 'url', message: 'Click', url: 'javascript:alert(1)' };
    renderWithBackend(<InteractionsHost />, backendWith([url]));
    const dialog = await screen.findByRole('dialog', { name: /billing asks for input/ });
    expect(within(dialog).queryByRole('link')).not.toBeInTheDocument();
    expect(dialog).toHaveTextContent('not a web page');
  });
});
