import { render, screen, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { describe, expect, it } from 'vitest';
import { toolView } from '../invoke/testing/fixtures';
import { stubLayout } from '../history/testing/stubLayout';
import { ToolList } from './ToolList';

stubLayout();

describe('ToolList', () => {
  it('names a tool of another bridge on the bus by bus:AGENT, so it never reads like a server of the same name', () => {
    const tools = [
      toolView({ name: 'mcp:weather.forecast', source: { kind: 'mcp', name: 'weather' }, toolName: 'forecast' }),
      toolView({ name: 'bus:weather.forecast', source: { kind: 'bus', name: 'weather' }, toolName: 'forecast' }),
    ];
    render(
      <MantineProvider>
        <ToolList tools={tools} onSelect={() => undefined} />
      </MantineProvider>,
    );
    const [local, remote] = screen.getAllByRole('option');
    expect(within(local!).getByText('weather')).toBeVisible();
    expect(within(remote!).getByText('bus:weather')).toBeVisible();
  });
});
