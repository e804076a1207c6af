import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ToolApproval } from '../../../../shared/approvals';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { HeldTurnsCard } from './HeldTurnsCard';

function held(name: string, taskRef: string, phase: ToolApproval['status']['phase'] = 'Pending'): ToolApproval {
  return {
    apiVersion: 'orloj.dev/v1',
    kind: 'ToolApproval',
    metadata: { name, created_at: new Date().toISOString() },
    spec: { task_ref: taskRef, tool: 'mcp:everything.get-tiny-image', operation_class: 'read', agent: 'assistant', input: {}, reason: 'assistant-images (permissions.yaml): read → confirm', ttl: '10m' },
    status: { phase, expires_at: new Date(Date.now() + 5 * 60_000).toISOString() },
    binding: { input_digest: 'ab'.repeat(32), policy_version: 'v1' },
  } as ToolApproval;
}

describe('HeldTurnsCard', () => {
  it("lists a mediated turn's held call, not the gateway's or a decided one, and links to its approval", async () => {
    const backend = new FakeBackend().onSubscribe('approvals.watch', (sub) =>
      sub.emit([held('assistant-image-1', 'mediation/assistant/7f1c'), held('assistant-image-2', 'gateway/assistant/s-1'), held('assistant-image-0', 'mediation/assistant/0a0a', 'Approved')]),
    );
    renderWithBackend(<HeldTurnsCard />, backend);
    const card = await screen.findByRole('region', { name: 'Turns waiting for approval' });
    const rows = within(card).getAllByRole('group', { name: 'Held call of assistant' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toHaveTextContent('mcp:everything.get-tiny-image');
    expect(rows[0]).toHaveTextContent('turn 7f1c');
    await userEvent.click(within(rows[0]!).getByRole('button', { name: 'Decide in Approvals' }));
    expect(`${window.location.pathname}${window.location.search}`).toBe('/approvals?approval=assistant-image-1');
  });
});
