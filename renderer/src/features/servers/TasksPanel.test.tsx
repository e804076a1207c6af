import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ServerTaskList, TaskResultView } from '../../../../shared/tasks';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { TasksPanel } from './TasksPanel';

const now = Date.now();
const list: ServerTaskList = {
  server: 'everything',
  canList: true,
  canCancel: true,
  tasks: [
    { server: 'everything', taskId: 'task-live', origin: 'call', subject: 'simulate-research-query', createdAt: now - 5_000, updatedAt: now, status: 'working', statusMessage: 'Analyzing content...', known: true, onServer: true },
    { server: 'everything', taskId: 'task-done', origin: 'call', subject: 'simulate-research-query', createdAt: now - 60_000, updatedAt: now, status: 'completed', known: true, onServer: true },
    { server: 'everything', taskId: 'task-gone', origin: 'call', subject: 'simulate-research-query', createdAt: now - 3_600_000, updatedAt: now, status: 'working', gone: true, known: true, onServer: false },
    { server: 'everything', taskId: 'task-exec', origin: 'executor', subject: 'sampling/createMessage', createdAt: now - 1_000, updatedAt: now, status: 'working', statusMessage: 'Waiting for the operator to reply', known: false, onServer: false },
  ],
};

const done: TaskResultView = { task: { taskId: 'task-done', status: 'completed' }, result: { content: [{ type: 'text', text: '# Research Report: tides' }] } };

function backend() {
  return new FakeBackend()
    .onSubscribe('tasks.watch', (subscription) => subscription.emit(list))
    .answer('tasks.cancel', () => ({ ...list.tasks[0], status: 'cancelled' }))
    .answer('tasks.result', () => done)
    .answer('tasks.forget', () => undefined);
}

describe('TasksPanel', () => {
  it('lists remembered, listed and executor tasks with their status, and marks the ones the server forgot', async () => {
    renderWithBackend(<TasksPanel server="everything" connected />, backend());
    const table = await screen.findByRole('table', { name: 'Tasks of everything' });
    const live = within(table).getByRole('row', { name: 'Task task-live' });
    expect(live).toHaveTextContent('working');
    expect(live).toHaveTextContent('Analyzing content...');
    expect(within(live).getByRole('button', { name: 'Wait for result' })).toBeEnabled();
    expect(within(live).getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
    const gone = within(table).getByRole('row', { name: 'Task task-gone' });
    expect(gone).toHaveTextContent('gone');
    expect(within(gone).getByRole('button', { name: 'Result' })).toBeDisabled();
    expect(within(table).getByRole('row', { name: 'Task task-exec' })).toHaveTextContent('Tooldeck runs it for the server');
  });

  it('cancels a running task and shows a finished task’s result', async () => {
    const user = userEvent.setup();
    const fake = backend();
    renderWithBackend(<TasksPanel server="everything" connected />, fake);
    const table = await screen.findByRole('table', { name: 'Tasks of everything' });
    await user.click(within(within(table).getByRole('row', { name: 'Task task-live' })).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(fake.callsTo('tasks.cancel')).toEqual([{ server: 'everything', taskId: 'task-live' }]));
    await user.click(within(within(table).getByRole('row', { name: 'Task task-done' })).getByRole('button', { name: 'Result' }));
    const dialog = await screen.findByRole('dialog', { name: 'Result of task task-done' });
    expect(await within(dialog).findByText('# Research Report: tides', { exact: false })).toBeInTheDocument();
    expect(fake.callsTo('tasks.result')).toEqual([{ server: 'everything', taskId: 'task-done' }]);
  });

  it('says when the server is not connected and only remembered tasks show', async () => {
    const fake = new FakeBackend().onSubscribe('tasks.watch', (s) => s.emit({ ...list, canList: false, canCancel: false, problem: 'everything is not connected: showing the tasks Tooldeck remembers, with their last known status' }));
    renderWithBackend(<TasksPanel server="everything" connected={false} />, fake);
    expect(await screen.findByRole('status')).toHaveTextContent('everything is not connected');
    expect(screen.queryByRole('button', { name: 'Cancel' })).not.toBeInTheDocument();
  });
});
