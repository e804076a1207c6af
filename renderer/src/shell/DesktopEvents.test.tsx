import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it, vi } from 'vitest';
import type { DesktopEvent } from '../../../shared/desktop';
import { DesktopEvents } from './DesktopEvents';
import { NavigationProvider, useLocation } from './useSection';

function Where() {
  const { section, params } = useLocation();
  return <output aria-label="location">{`${section} ${JSON.stringify(params)}`}</output>;
}

afterEach(() => {
  delete (globalThis as { tooldeckDesktop?: unknown }).tooldeckDesktop;
});

it('navigates on deep links, tells about refused links and offers a downloaded update', async () => {
  let emit: (event: DesktopEvent) => void = () => undefined;
  const installUpdate = vi.fn();
  (globalThis as { tooldeckDesktop?: unknown }).tooldeckDesktop = { onEvent: (listener: typeof emit) => ((emit = listener), () => undefined), installUpdate };
  render(
    <MantineProvider env="test">
      <Notifications />
      <NavigationProvider>
        <DesktopEvents />
        <Where />
      </NavigationProvider>
    </MantineProvider>,
  );
  act(() => emit({ kind: 'navigate', section: 'tools', params: { tool: 'mcp:everything.echo' } }));
  expect(screen.getByLabelText('location')).toHaveTextContent('tools {"tool":"mcp:everything.echo"}');
  expect(window.location.pathname + window.location.search).toBe('/tools?tool=mcp%3Aeverything.echo');

  act(() => emit({ kind: 'link-blocked', url: 'ftp://files.example/', reason: 'ftp: links are not opened' }));
  expect(await screen.findByText('ftp: links are not opened: ftp://files.example/')).toBeInTheDocument();

  act(() => emit({ kind: 'update-ready', version: '0.2.0' }));
  await userEvent.click(await screen.findByRole('button', { name: 'Restart and update' }));
  expect(installUpdate).toHaveBeenCalledTimes(1);
});
