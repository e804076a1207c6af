import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ToolApproval } from '../../../../shared/approvals';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { ApprovalsBadge } from './ApprovalsBadge';
import { ApprovalsHeaderButton } from './ApprovalsHeaderButton';
import { ApprovalsProvider } from './useApprovals';
import { ApprovalsView } from './ApprovalsView';

const watchPath = 'approvals.watch';

function approval(name: string, overrides: { phase?: ToolApproval['status']['phase']; expiresInMs?: number; input?: Record<string, unknown>; decidedBy?: string; comment?: string } = {}): ToolApproval {
  const phase = overrides.phase ?? 'Pending';
  return {
    apiVersion: 'orloj.dev/v1',
    kind: 'ToolApproval',
    metadata: { name, created_at: new Date(Date.now() - 60_000).toISOString() },
    spec: {
      task_ref: 'session-1',
      tool: 'mcp:files.delete_file',
      operation_class: 'delete',
      agent: 'planner-bot',
      input: overrides.input ?? { path: '/srv/reports/q3.csv', recursive: false },
      reason: 'ToolPermission files-guard: delete needs approval',
      ttl: '10m',
    },
    status: {
      phase,
      expires_at: new Date(Date.now() + (overrides.expiresInMs ?? 5 * 60_000)).toISOString(),
      ...(phase === 'Pending' ? {} : { decided_by: overrides.decidedBy ?? 'alice', decided_at: new Date().toISOString(), decision: phase === 'Approved' ? 'approved' : 'denied' }),
      ...(overrides.comment ? { comment: overrides.comment } : {}),
    },
    binding: { input_digest: 'ab'.repeat(32), policy_version: 'v1', risk: 'high' },
  } as ToolApproval;
}

function backendWith(approvals: ToolApproval[]) {
  return new FakeBackend().onSubscribe(watchPath, (subscription) => subscription.emit(approvals)).answer('approvals.decide', (input) => {
    const { name, decision, comment } = input as { name: string; decision: 'approve' | 'deny'; comment?: string };
    return approval(name, { phase: decision === 'approve' ? 'Approved' : 'Denied', ...(comment ? { comment } : {}) });
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ApprovalsView', () => {
  it('shows each held call with its agent, tool, risk, rule, time left and arguments as a tree; decided ones below', async () => {
    renderWithBackend(<ApprovalsView />, backendWith([approval('planner-bot-delete-1'), approval('planner-bot-delete-2', { input: { path: '/tmp/x' } }), approval('planner-bot-delete-0', { phase: 'Denied', comment: 'not today' })]));

    const card = await screen.findByRole('article', { name: 'Approval planner-bot-delete-1' });
    expect(within(card).getByLabelText('Agent')).toHaveTextContent('planner-bot');
    expect(within(card).getByLabelText('Tool')).toHaveTextContent('mcp:files.delete_file');
    expect(within(card).getByLabelText('Risk')).toHaveTextContent('risk: high');
    expect(within(card).getByLabelText('Rule')).toHaveTextContent('ToolPermission files-guard: delete needs approval');
    expect(within(card).getByLabelText('Time left')).toHaveTextContent(/^[45]:\d\d left$/);
    const tree = within(card).getByRole('tree', { name: 'Arguments of planner-bot-delete-1' });
    expect(within(tree).getByRole('treeitem', { name: /"path":\s*"\/srv\/reports\/q3\.csv"/ })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Waiting for a decision (2)' })).toBeInTheDocument();

    const decided = screen.getByRole('table', { name: 'Decided approvals' });
    const row = within(decided).getByRole('row', { name: 'planner-bot-delete-0' });
    expect(row).toHaveTextContent('Denied');
    expect(row).toHaveTextContent('alice');
    expect(row).toHaveTextContent('not today');
  });

  it('approves with the comment typed, and denies', async () => {
    const user = userEvent.setup();
    const backend = backendWith([approval('planner-bot-delete-1'), approval('planner-bot-delete-2')]);
    renderWithBackend(<ApprovalsView />, backend);

    const first = await screen.findByRole('article', { name: 'Approval planner-bot-delete-1' });
    await user.type(within(first).getByRole('textbox', { name: /Comment/ }), 'checked with finance');
    await user.click(within(first).getByRole('button', { name: 'Approve planner-bot-delete-1' }));
    await waitFor(() => expect(backend.callsTo('approvals.decide')).toEqual([{ name: 'planner-bot-delete-1', decision: 'approve', comment: 'checked with finance' }]));

    const second = screen.getByRole('article', { name: 'Approval planner-bot-delete-2' });
    await user.click(within(second).getByRole('button', { name: 'Deny planner-bot-delete-2' }));
    await waitFor(() => expect(backend.callsTo('approvals.decide')).toHaveLength(2));
    expect(backend.callsTo('approvals.decide')[1]).toEqual({ name: 'planner-bot-delete-2', decision: 'deny' });
  });

  it('says so when a decision came too late', async () => {
    const user = userEvent.setup();
    const backend = backendWith([approval('planner-bot-delete-1')]).answer('approvals.decide', () => {
      throw { code: 'AlreadyExists', message: 'Approval planner-bot-delete-1 is no longer Pending: it was denied by bob at 2026-11-28T12:00:00.000Z.', retryable: false, step: 'decided' };
    });
    renderWithBackend(<ApprovalsView />, backend);
    await user.click(await screen.findByRole('button', { name: 'Approve planner-bot-delete-1' }));
    expect(await screen.findByText(/is no longer Pending: it was denied by bob/)).toBeInTheDocument();
  });

  it('counts the time left down as it passes', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    vi.setSystemTime(new Date('2026-11-28T12:00:00Z'));
    renderWithBackend(<ApprovalsView />, backendWith([approval('planner-bot-delete-1', { expiresInMs: 90_000 })]));
    const left = await screen.findByLabelText('Time left');
    expect(left).toHaveTextContent('1:30 left');
    act(() => vi.advanceTimersByTime(31_000));
    expect(left).toHaveTextContent('0:59 left');
  });

  it('invites nothing when no call waits', async () => {
    renderWithBackend(<ApprovalsView />, backendWith([]));
    expect(await screen.findByText('No calls are waiting')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });
});

describe('ApprovalsBadge', () => {
  it('counts the calls waiting, and shows nothing when none wait', async () => {
    const backend = new FakeBackend();
    renderWithBackend(<ApprovalsBadge />, backend);
    await waitFor(() => expect(backend.subscriptionsTo(watchPath)).toHaveLength(1));
    const [subscription] = backend.subscriptionsTo(watchPath);
    subscription!.emit([approval('a-1'), approval('a-2'), approval('a-0', { phase: 'Approved' })]);
    expect(await screen.findByLabelText('2 waiting for a decision')).toHaveTextContent('2');
    subscription!.emit([approval('a-0', { phase: 'Approved' })]);
    await waitFor(() => expect(screen.queryByLabelText(/waiting for a decision/)).not.toBeInTheDocument());
  });
});

describe('ApprovalsHeaderButton', () => {
  it('shares one subscription with the badge, says how many calls wait, and opens the inbox', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(
      <ApprovalsProvider>
        <ApprovalsHeaderButton />
        <ApprovalsBadge />
      </ApprovalsProvider>,
      backend,
    );
    await waitFor(() => expect(backend.subscriptionsTo(watchPath)).toHaveLength(1));
    expect(screen.getByRole('button', { name: 'Approvals: none waiting' })).toBeVisible();
    backend.subscriptionsTo(watchPath)[0]!.emit([approval('a-1'), approval('a-0', { phase: 'Denied' })]);
    await user.click(await screen.findByRole('button', { name: 'Approvals: 1 waiting for a decision' }));
    expect(window.location.pathname).toBe('/approvals');
    expect(screen.getByLabelText('1 waiting for a decision')).toHaveTextContent('1');
    expect(backend.subscriptionsTo(watchPath)).toHaveLength(1);
  });
});
