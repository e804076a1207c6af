import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { ExcludedToolModal } from './ExcludedToolModal';

const tool = { name: 'get-structured-content', description: 'Returns structured content', inputSchema: { type: 'object' as const } };
const exclusion = { reason: 'excluded by tool_filter.include in everything.yaml', file: 'everything.yaml' };

function renderModal(backend = new FakeBackend(), onClose = vi.fn(), shown: { reason: string; file?: string } = exclusion) {
  renderWithBackend(<ExcludedToolModal server="everything" tool={tool} exclusion={shown} onClose={onClose} />, backend);
  return { dialog: screen.getByRole('dialog', { name: 'get-structured-content is not in the registry' }), onClose, backend };
}

describe('ExcludedToolModal', () => {
  it('says the tool is not callable until the filter admits it, shows what to add, and offers no way to call it directly', () => {
    const { dialog } = renderModal();
    expect(dialog).toHaveTextContent('excluded by tool_filter.include in everything.yaml');
    expect(dialog).toHaveTextContent('It cannot be called until the filter admits it');
    expect(dialog).toHaveTextContent('becomes mcp:everything.get-structured-content');
    expect(within(dialog).getByLabelText('What to add')).toHaveTextContent(/tool_filter:\s*include:\s*- get-structured-content/);
    // Every call goes through the registry's pipeline; a tool outside the registry has no way in but admission.
    expect(within(dialog).queryByRole('button', { name: /invoke|call|run/i })).toBeNull();
    expect(within(dialog).getByRole('button', { name: 'Admit to the registry' })).toBeInTheDocument();
  });

  it('opens the file that excludes it in Resources', async () => {
    const { dialog, onClose } = renderModal();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Open everything.yaml' }));
    expect(onClose).toHaveBeenCalled();
    expect(window.location.pathname).toBe('/resources');
    expect(new URLSearchParams(window.location.search).get('file')).toBe('everything.yaml');
  });

  it('admits the tool through resources.admitTool and closes once the file is written', async () => {
    const backend = new FakeBackend().answer('resources.admitTool', () => ({ file: 'everything.yaml', version: 'v2', registryName: 'mcp:everything.get-structured-content' }));
    const { dialog, onClose } = renderModal(backend);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Admit to the registry' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(backend.callsTo('resources.admitTool')).toEqual([{ server: 'everything', tool: 'get-structured-content' }]);
  });

  it('shows the backend refusal and stays open', async () => {
    const message = 'get-structured-content is already in tool_filter.include of the McpServer everything in everything.yaml.';
    const backend = new FakeBackend().answer('resources.admitTool', () => {
      throw { code: 'AlreadyExists', message, retryable: false };
    });
    const { dialog, onClose } = renderModal(backend);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Admit to the registry' }));
    expect(await within(dialog).findByText(message)).toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('offers no admission when the exclusion names no workspace file', () => {
    const { dialog } = renderModal(new FakeBackend(), vi.fn(), { reason: 'excluded' });
    expect(within(dialog).queryByRole('button', { name: 'Admit to the registry' })).toBeNull();
  });
});
