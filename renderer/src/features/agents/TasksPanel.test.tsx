import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { A2aTaskView } from '../../../../shared/a2a';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { TasksPanel } from './TasksPanel';

const task: A2aTaskView = { id: 'task-1', contextId: 'ctx-1', state: 'COMPLETED', artifacts: [], history: [] };

function backend() {
  return new FakeBackend()
    .answer('a2a.supportsListTasks', () => true)
    .answer('a2a.listTasks', () => ({ tasks: [task] }));
}

/** The ListTasks requests sent, so a test sees what the filter asked the agent for. */
const listRequests = (fake: FakeBackend) => fake.callsTo('a2a.listTasks') as Array<{ contextId?: string }>;

/** What Mantine's stylesheet gives the input's right section as pointer-events (its default is none). */
const rightSectionPointerEvents = (input: HTMLElement) => input.parentElement!.style.getPropertyValue('--input-right-section-pointer-events');

describe('A2A TasksPanel search boxes', () => {
  it('clears the context filter with one click and lists every task again', async () => {
    const user = userEvent.setup();
    const fake = backend();
    renderWithBackend(<TasksPanel agent="planner" protocolVersion="1.0" />, fake);
    const filter = await screen.findByRole('textbox', { name: 'Filter by context id' });
    expect(screen.queryByRole('button', { name: 'Clear filter' })).not.toBeInTheDocument();

    await user.type(filter, 'ctx-9');
    await waitFor(() => expect(listRequests(fake).at(-1)?.contextId).toBe('ctx-9'));

    // jsdom loads no CSS, so the click below cannot tell; in a browser Mantine's right section lets
    // no click through unless the input says so, and the button would sit there dead.
    expect(rightSectionPointerEvents(filter)).toBe('all');
    await user.click(screen.getByRole('button', { name: 'Clear filter' }));
    expect(filter).toHaveValue('');
    // The unfiltered list is asked for again: clearing is a filter change, not only an empty box.
    await waitFor(() => expect(listRequests(fake).at(-1)).not.toHaveProperty('contextId'));
    expect(screen.queryByRole('button', { name: 'Clear filter' })).not.toBeInTheDocument();
  });

  it('clears the task id box', async () => {
    const user = userEvent.setup();
    renderWithBackend(<TasksPanel agent="planner" protocolVersion="1.0" />, backend());
    const taskId = screen.getByRole('textbox', { name: 'Task ID' });
    expect(screen.queryByRole('button', { name: 'Clear task id' })).not.toBeInTheDocument();
    await user.type(taskId, 'task-1');
    expect(rightSectionPointerEvents(taskId)).toBe('all');
    await user.click(screen.getByRole('button', { name: 'Clear task id' }));
    expect(taskId).toHaveValue('');
    expect(screen.getByRole('button', { name: 'Open task' })).toBeDisabled();
  });
});
