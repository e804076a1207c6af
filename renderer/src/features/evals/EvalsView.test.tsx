import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { SuiteFile } from './useEvals';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { EvalsView } from './EvalsView';

const suite: SuiteFile = { file: 'evals/assistant.yml', suite: { name: 'assistant', agent: 'assistant', iterations: 1, cases: [{ name: 'adds', prompt: 'Please add 2 and 40' }] } as SuiteFile['suite'] };

function evalsBackend(providers: Array<{ name: string; format: 'openai' }>) {
  return new FakeBackend()
    .answer('evals.suites', () => [suite])
    .answer('evals.providers', () => providers)
    .answer('evals.models', () => [])
    .onSubscribe('evals.watchRuns', (sub) => sub.emit([]));
}

describe('EvalsView run panel', () => {
  it('without a provider, Run says why it waits and leads to Add provider; the Models field reads as empty', async () => {
    const user = userEvent.setup();
    renderWithBackend(<EvalsView />, evalsBackend([]));
    const run = await screen.findByRole('button', { name: 'Run suite' });
    expect(run).toBeDisabled();
    await waitFor(() => expect(run).toHaveAccessibleDescription('Run needs a model provider: add one in Mediation, then pick its models here.'));
    expect(screen.getByRole('combobox', { name: 'Models' })).toHaveAttribute('placeholder', 'No provider yet');
    await user.click(screen.getByRole('button', { name: 'Add provider' }));
    expect(`${window.location.pathname}${window.location.search}`).toBe('/mediation?add=provider');
  });

  it('with a provider, Run waits for a model and says so, and is enabled once one is picked', async () => {
    const user = userEvent.setup();
    renderWithBackend(<EvalsView />, evalsBackend([{ name: 'mock', format: 'openai' }]));
    const models = await screen.findByRole('combobox', { name: 'Models' });
    await waitFor(() => expect(models).toHaveAttribute('placeholder', 'Type mock/…, then Enter'));
    const run = screen.getByRole('button', { name: 'Run suite' });
    expect(run).toHaveAccessibleDescription('Run needs at least one model: type provider/model and press Enter.');
    await user.type(models, 'mock/right{Enter}');
    await waitFor(() => expect(run).toBeEnabled());
    expect(screen.queryByText(/^Run needs/)).toBeNull();
  });

  it('with no suite yet, New suite opens Resources on the eval suite template', async () => {
    const user = userEvent.setup();
    renderWithBackend(<EvalsView />, evalsBackend([]).answer('evals.suites', () => []));
    await user.click(await screen.findByRole('button', { name: 'New suite' }));
    expect(`${window.location.pathname}${window.location.search}`).toBe('/resources?new=EvalSuite');
  });

  it('a run some of whose sources did not connect says which, beside its results', async () => {
    const run = { id: 'r1', file: suite.file, suite: 'assistant', models: ['mock/right'], state: 'done', startedAt: 0, done: 1, planned: 1, results: [], notConnected: 'Not connected: mcp:refused (Cannot reach http://127.0.0.1:1/mcp: fetch failed).' };
    renderWithBackend(<EvalsView />, evalsBackend([{ name: 'mock', format: 'openai' }]).onSubscribe('evals.watchRuns', (sub) => sub.emit([run])));
    const results = await screen.findByRole('region', { name: 'Results' });
    expect(results).toHaveTextContent('Some sources did not connect: their tools were not offered');
    expect(results).toHaveTextContent('Not connected: mcp:refused (Cannot reach http://127.0.0.1:1/mcp: fetch failed).');
  });
});
