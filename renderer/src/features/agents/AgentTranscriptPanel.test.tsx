import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { A2aTranscriptEntry } from '../../../../shared/a2a';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { AgentTranscriptPanel } from './AgentTranscriptPanel';

const entries: A2aTranscriptEntry[] = [
  { seq: 1, agent: 'planner', at: 1_700_000_000_000, direction: 'request', method: 'GET /.well-known/agent-card.json', url: 'http://127.0.0.1:9/.well-known/agent-card.json' },
  { seq: 2, agent: 'planner', at: 1_700_000_000_100, direction: 'request', method: 'message/send', url: 'http://127.0.0.1:9/', body: '{"method":"message/send"}' },
];

/** What Mantine's stylesheet gives the input's right section as pointer-events (its default is none). */
const rightSectionPointerEvents = (input: HTMLElement) => input.parentElement!.style.getPropertyValue('--input-right-section-pointer-events');

describe('AgentTranscriptPanel filter', () => {
  it('offers a clear button only while the filter has text, and clearing shows all traffic again', async () => {
    const user = userEvent.setup();
    renderWithBackend(<AgentTranscriptPanel agent="planner" />, new FakeBackend().answer('a2a.transcript', () => entries));
    const table = screen.getByRole('table', { name: 'Transcript' });
    expect(await within(table).findByText('message/send')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Clear filter' })).not.toBeInTheDocument();

    const filter = screen.getByRole('textbox', { name: 'Filter transcript' });
    await user.type(filter, 'message/send');
    expect(within(table).queryByText('GET /.well-known/agent-card.json')).not.toBeInTheDocument();

    // jsdom loads no CSS, so the click below cannot tell; in a browser Mantine's right section lets
    // no click through unless the input says so, and the button would sit there dead.
    expect(rightSectionPointerEvents(filter)).toBe('all');
    await user.click(screen.getByRole('button', { name: 'Clear filter' }));
    expect(filter).toHaveValue('');
    expect(within(table).getByText('GET /.well-known/agent-card.json')).toBeInTheDocument();
    expect(within(table).getByText('message/send')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Clear filter' })).not.toBeInTheDocument();
  });
});
