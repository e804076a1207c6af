import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { Assertion } from '../../../../shared/collections';
import { stubLayout } from '../history/testing/stubLayout';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { AssertionsEditor } from './AssertionsEditor';
import { assertionFromDraft, type AssertionDraft } from './requestDraft';

stubLayout();

/** Shows what the editor's drafts turn into, as the request editor saves them. */
function Harness() {
  const [drafts, setDrafts] = useState<AssertionDraft[]>([]);
  const built = drafts.map(assertionFromDraft);
  return (
    <>
      <AssertionsEditor value={drafts} onChange={setDrafts} />
      <output aria-label="Built">{JSON.stringify(built.map((b) => (b.ok ? b.value : null)))}</output>
    </>
  );
}

function built(): unknown[] {
  return JSON.parse(screen.getByRole('status', { name: 'Built' }).textContent!) as unknown[];
}

describe('AssertionsEditor', () => {
  it('builds status, JSON path and latency assertions that the collection schema accepts', async () => {
    const user = userEvent.setup();
    renderWithBackend(<Harness />, new FakeBackend());

    await user.click(screen.getByRole('button', { name: 'Add assertion' }));
    await user.click(screen.getByRole('button', { name: 'Add assertion' }));
    await user.click(screen.getByRole('button', { name: 'Add assertion' }));

    const second = screen.getByRole('group', { name: 'Assertion 2' });
    await user.click(within(second).getByRole('combobox', { name: 'Kind' }));
    await user.click(await screen.findByRole('option', { name: 'JSON path' }));
    const path = within(second).getByRole('textbox', { name: /Path/ });
    await user.clear(path);
    await user.type(path, 'text');
    await user.click(within(second).getByRole('combobox', { name: 'Operator' }));
    await user.click(await screen.findByRole('option', { name: 'contains' }));
    await user.type(within(second).getByRole('textbox', { name: /Value/ }), 'Echo');

    const third = screen.getByRole('group', { name: 'Assertion 3' });
    await user.click(within(third).getByRole('combobox', { name: 'Kind' }));
    await user.click(await screen.findByRole('option', { name: 'Latency below' }));
    const latency = within(third).getByRole('textbox', { name: 'Latency below (ms)' });
    await user.clear(latency);
    await user.type(latency, '500');

    expect(built()).toEqual([{ status: 'ok' }, { path: 'text', contains: 'Echo' }, { latencyBelowMs: 500 }]);
    for (const a of built()) expect(Assertion.safeParse(a).success).toBe(true);

    await user.click(screen.getByRole('button', { name: 'Remove assertion 1' }));
    expect(built()).toEqual([{ path: 'text', contains: 'Echo' }, { latencyBelowMs: 500 }]);
  });

  it('flags a path that is neither $… nor text', async () => {
    const user = userEvent.setup();
    renderWithBackend(<Harness />, new FakeBackend());
    await user.click(screen.getByRole('button', { name: 'Add assertion' }));
    const first = screen.getByRole('group', { name: 'Assertion 1' });
    await user.click(within(first).getByRole('combobox', { name: 'Kind' }));
    await user.click(await screen.findByRole('option', { name: 'JSON path' }));
    const path = within(first).getByRole('textbox', { name: /Path/ });
    await user.clear(path);
    await user.type(path, 'content');
    expect(within(first).getByRole('alert')).toHaveTextContent('a path starts with `$` (the result) or is `text`');
    expect(built()).toEqual([null]);
  });
});
