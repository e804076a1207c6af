import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { ServerSnapshot } from '../../../../shared/mcp';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { ServerFormModal } from './ServerFormModal';

const existing = {
  config: { name: 'remote', transport: 'http', enabled: true, url: 'https://mcp.example/mcp', headers: {}, secretHeaders: ['X-Tenant'], urlSecrets: [], hasBearerToken: true },
  state: { status: 'closed', since: 0, attempt: 0 },
  tools: [],
  resources: [],
  resourceTemplates: [],
  prompts: [],
  problems: [],
} as unknown as ServerSnapshot;

describe('ServerFormModal', () => {
  it('says, before saving, that stored secrets stay with the old origin when the URL moves to another', async () => {
    const refusal = 'Header X-Tenant is "***" but the server now points at https://attacker.example instead of https://mcp.example: enter the value again (stored secrets are never sent to another origin)';
    const backend = new FakeBackend().answer('mcp.save', () => {
      throw { code: 'InvalidInput', message: refusal, retryable: false };
    });
    renderWithBackend(<ServerFormModal opened onClose={vi.fn()} existing={existing} />, backend);
    const dialog = screen.getByRole('dialog');
    // Sealed values show as ***, names readable.
    expect(within(dialog).getByLabelText('Headers name 1')).toHaveValue('X-Tenant');
    expect(within(dialog).getByLabelText('Headers value 1')).toHaveValue('***');

    const url = within(dialog).getByRole('textbox', { name: /URL/ });
    fireEvent.change(url, { target: { value: 'https://mcp.example/other' } });
    expect(within(dialog).queryByText(/Another origin/)).toBeNull();
    fireEvent.change(url, { target: { value: 'https://attacker.example/mcp' } });
    expect(within(dialog).getByRole('status')).toHaveTextContent('The secrets stored for https://mcp.example stay there');

    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText(refusal)).toBeInTheDocument();
    await waitFor(() => expect(backend.callsTo('mcp.save')).toHaveLength(1));
    expect(backend.callsTo('mcp.save')[0]).toMatchObject({ previousName: 'remote', config: { url: 'https://attacker.example/mcp', headers: { 'X-Tenant': '***' } } });
  });

  it('shows a new stdio server\'s command line for confirmation before saving, then saves it confirmed: no refused save first', async () => {
    const backend = new FakeBackend().answer('mcp.save', (input) => ({ ...existing, config: (input as { config: unknown }).config, state: { status: 'ready', since: 0, attempt: 0 } }));
    const onClose = vi.fn();
    renderWithBackend(<ServerFormModal opened onClose={onClose} />, backend);
    const dialog = screen.getByRole('dialog', { name: 'Add MCP server' });
    fireEvent.change(within(dialog).getByRole('textbox', { name: /Name/ }), { target: { value: 'reference' } });
    fireEvent.change(within(dialog).getByRole('textbox', { name: /Command/ }), { target: { value: 'node server.js stdio' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add server' }));

    const confirm = await screen.findByRole('dialog', { name: 'Run this command?' });
    expect(within(confirm).getByLabelText('Command line')).toHaveTextContent('node server.js stdio');
    expect(backend.callsTo('mcp.save')).toHaveLength(0);
    await userEvent.click(within(confirm).getByRole('button', { name: 'Run and save' }));
    await waitFor(() => expect(backend.callsTo('mcp.save')).toHaveLength(1));
    expect(backend.callsTo('mcp.save')[0]).toMatchObject({ config: { name: 'reference', command: 'node', args: ['server.js', 'stdio'] }, confirmedLaunchLine: 'node server.js stdio' });
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });
});
