import { MantineProvider } from '@mantine/core';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { NavigationProvider } from '../../shell/useSection';
import { ExcludedToolModal } from './ExcludedToolModal';

const tool = { name: 'get-structured-content', description: 'Returns structured content', inputSchema: { type: 'object' as const } };

function renderModal(onClose = vi.fn()) {
  render(
    <MantineProvider env="test">
      <NavigationProvider>
        <ExcludedToolModal server="everything" tool={tool} exclusion={{ reason: 'excluded by tool_filter.include in everything.yaml', file: 'everything.yaml' }} onClose={onClose} />
      </NavigationProvider>
    </MantineProvider>,
  );
  return { dialog: screen.getByRole('dialog', { name: 'get-structured-content is not in the registry' }), onClose };
}

describe('ExcludedToolModal', () => {
  it('says the tool is not callable until the filter admits it, shows what to add, and offers no way to call it', () => {
    const { dialog } = renderModal();
    expect(dialog).toHaveTextContent('excluded by tool_filter.include in everything.yaml');
    expect(dialog).toHaveTextContent('It cannot be called until the filter admits it');
    expect(dialog).toHaveTextContent('becomes mcp:everything.get-structured-content');
    expect(within(dialog).getByLabelText('What to add')).toHaveTextContent(/tool_filter:\s*include:\s*- get-structured-content/);
    // Every call goes through the registry's pipeline; a tool outside the registry has no way in.
    expect(within(dialog).queryByRole('button', { name: /invoke|call|run/i })).toBeNull();
  });

  it('opens the file that excludes it in Resources', async () => {
    const { dialog, onClose } = renderModal();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Open everything.yaml' }));
    expect(onClose).toHaveBeenCalled();
    expect(window.location.pathname).toBe('/resources');
    expect(new URLSearchParams(window.location.search).get('file')).toBe('everything.yaml');
  });
});
