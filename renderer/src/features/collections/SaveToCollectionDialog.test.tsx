import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { CollectionListItem, SavedRequestInput } from '../../../../shared/collections';
import { stubLayout } from '../history/testing/stubLayout';
import { InvokePanel } from '../invoke/InvokePanel';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { toolView } from '../invoke/testing/fixtures';
import { SaveToCollectionDialog } from './SaveToCollectionDialog';

stubLayout();

const existing: CollectionListItem[] = [{ name: 'smoke', requestCount: 2 }];

/** Drafts the way the server does: target and tool from the registry name, expecting status ok. */
function draftOf(input: unknown): SavedRequestInput {
  const { name, arguments: args, timeoutMs } = input as { name: string; arguments: Record<string, unknown>; timeoutMs?: number };
  const [target, tool] = [name.slice(0, name.indexOf('.')), name.slice(name.indexOf('.') + 1)];
  return { name: tool!, target, tool: tool!, arguments: args, ...(timeoutMs ? { timeoutMs } : {}), assertions: [{ status: 'ok' }], capture: {} };
}

function backend() {
  return new FakeBackend()
    .answer('collections.list', () => existing)
    .answer('collections.draftFromCall', draftOf)
    .answer('collections.saveRequest', (input) => ({ collection: { name: (input as { collection: string }).collection, variables: {}, requests: [] }, text: '' }));
}

describe('Save to collection', () => {
  it('saves the invoke panel’s tool and arguments as a request of a new collection, expecting status ok', async () => {
    const user = userEvent.setup();
    const fake = backend();
    const tool = toolView({ inputSchema: { type: 'object', properties: { message: { type: 'string', default: 'hello' } } } });
    renderWithBackend(<InvokePanel tool={tool} />, fake);

    await user.click(screen.getByRole('button', { name: 'Save to collection' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save to collection' });
    const requestName = await within(dialog).findByLabelText(/Request name/);
    expect(requestName).toHaveValue('make_thing');

    await user.type(within(dialog).getByRole('combobox', { name: /Collection/ }), 'regression');
    expect(within(dialog).getByText('Creates this collection.')).toBeInTheDocument();
    await user.clear(requestName);
    await user.type(requestName, 'make a thing');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(fake.callsTo('collections.saveRequest')).toHaveLength(1));
    expect(fake.callsTo('collections.draftFromCall')[0]).toEqual({ name: 'mcp:demo.make_thing', arguments: { message: 'hello' } });
    expect(fake.callsTo('collections.saveRequest')[0]).toEqual({
      collection: 'regression',
      request: { name: 'make a thing', target: 'mcp:demo', tool: 'make_thing', arguments: { message: 'hello' }, assertions: [{ status: 'ok' }], capture: {} },
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Save to collection' })).not.toBeInTheDocument());
  });

  it('saves a recorded call into an existing collection with the first assertion chosen', async () => {
    const user = userEvent.setup();
    const fake = backend().answer('collections.draftFromHistory', () => ({ name: 'echo', target: 'mcp:everything', tool: 'echo', arguments: { message: 'hi' }, assertions: [{ status: 'isError' }], capture: {} }));
    renderWithBackend(<SaveToCollectionDialog opened source={{ kind: 'history', id: 'inv-7' }} onClose={() => {}} />, fake);

    const dialog = await screen.findByRole('dialog', { name: 'Save to collection' });
    await within(dialog).findByLabelText(/Request name/);
    expect(within(dialog).getByRole('combobox', { name: 'First assertion' })).toHaveValue('Tool returns an error (isError)');
    await user.click(within(dialog).getByRole('combobox', { name: /Collection/ }));
    await user.click(await screen.findByRole('option', { name: 'smoke' }));
    expect(within(dialog).getByText('Adds the request to this collection.')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('combobox', { name: 'First assertion' }));
    await user.click(await screen.findByRole('option', { name: 'Status ok' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(fake.callsTo('collections.saveRequest')).toHaveLength(1));
    expect(fake.callsTo('collections.draftFromHistory')[0]).toEqual({ id: 'inv-7' });
    expect(fake.callsTo('collections.saveRequest')[0]).toMatchObject({ collection: 'smoke', request: { name: 'echo', target: 'mcp:everything', arguments: { message: 'hi' }, assertions: [{ status: 'ok' }] } });
  });
});
