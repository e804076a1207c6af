import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ServerSnapshot } from '../../../../shared/mcp';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { StartHere } from './StartHere';

/** The console a newcomer opens: the example's server connected, one call made, the gateway off. */
function freshConsole(dismissed: boolean) {
  const everything = { config: { name: 'everything', transport: 'stdio' }, state: { status: 'ready' } } as unknown as ServerSnapshot;
  return new FakeBackend()
    .answer('system.guide', () => ({ startHereDismissed: dismissed }))
    .answer('system.setGuide', (input) => input)
    .answer('mcp.list', () => [everything])
    .answer('gateway.status', () => ({ running: false }))
    .answer('gateway.agents', () => [])
    .answer('history.count', () => 1)
    .onSubscribe('approvals.watch', (sub) => sub.emit([]));
}

describe('StartHere', () => {
  it('ticks the steps the console shows done, explains the next one with a link to it, and hides for good when asked', async () => {
    const user = userEvent.setup();
    const backend = freshConsole(false);
    renderWithBackend(<StartHere />, backend);
    const panel = await screen.findByRole('region', { name: 'Start here' });
    await waitFor(() => expect(within(panel).getByText('2 of 6 done')).toBeVisible());
    expect(within(panel).getByRole('listitem', { name: '1. Run the example server (done)' })).toBeVisible();
    expect(within(panel).getByRole('listitem', { name: '2. Call a tool (done)' })).toBeVisible();
    expect(within(panel).getByLabelText('Next step')).toHaveTextContent('Next, see it in history:');

    await user.click(within(panel).getByRole('button', { name: '4. Switch the gateway on' }));
    expect(window.location.pathname).toBe('/gateway');
    await user.click(within(panel).getByRole('button', { name: /^Hide/ }));
    await waitFor(() => expect(backend.callsTo('system.setGuide')).toEqual([{ startHereDismissed: true }]));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Start here' })).toBeNull());
  });
});
