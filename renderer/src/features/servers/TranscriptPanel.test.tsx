import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../../../shared/mcp';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { TranscriptPanel } from './TranscriptPanel';

const entries: TranscriptEntry[] = [
  { seq: 1, at: 1_700_000_000_000, direction: 'out', kind: 'request', method: 'tools/list', id: 1, bytes: 40, text: '{"method":"tools/list"}' },
  { seq: 2, at: 1_700_000_000_100, direction: 'out', kind: 'request', method: 'ping', id: 2, bytes: 30, text: '{"method":"ping"}' },
];

/** What Mantine's stylesheet gives the input's right section as pointer-events (its default is none). */
const rightSectionPointerEvents = (input: HTMLElement) => input.parentElement!.style.getPropertyValue('--input-right-section-pointer-events');

describe('TranscriptPanel filter', () => {
  it('offers a clear button only while the filter has text, and clearing shows every message again', async () => {
    const user = userEvent.setup();
    renderWithBackend(<TranscriptPanel server="everything" />, new FakeBackend().answer('mcp.transcript', () => entries));
    const table = screen.getByRole('table', { name: 'Transcript' });
    expect(await within(table).findByText('tools/list')).toBeInTheDocument();
    // Nothing to clear yet: no button beside an empty box.
    expect(screen.queryByRole('button', { name: 'Clear filter' })).not.toBeInTheDocument();

    const filter = screen.getByRole('textbox', { name: 'Filter transcript' });
    await user.type(filter, 'ping');
    expect(within(table).queryByText('tools/list')).not.toBeInTheDocument();
    expect(within(table).getByText('ping')).toBeInTheDocument();

    // jsdom loads no CSS, so the click below cannot tell; in a browser Mantine's right section lets
    // no click through unless the input says so, and the button would sit there dead.
    expect(rightSectionPointerEvents(filter)).toBe('all');
    await user.click(screen.getByRole('button', { name: 'Clear filter' }));
    expect(filter).toHaveValue('');
    expect(within(table).getByText('tools/list')).toBeInTheDocument();
    expect(within(table).getByText('ping')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Clear filter' })).not.toBeInTheDocument();
  });
});
