import { useSubscription } from '@trpc/tanstack-react-query';
import { createContext, createElement, useContext, useEffect, useState, type ReactNode } from 'react';
import type { ToolApproval } from '../../../../shared/approvals';
import { useTRPC } from '../../rpc/client';

type ApprovalsState = { approvals: ToolApproval[] | undefined; error: string | undefined };

const SharedApprovals = createContext<ApprovalsState | undefined>(undefined);

function useApprovalsSubscription(enabled: boolean): ApprovalsState {
  const trpc = useTRPC();
  const sub = useSubscription(trpc.approvals.watch.subscriptionOptions(undefined, { enabled }));
  return { approvals: sub.data as ToolApproval[] | undefined, error: sub.error?.message };
}

/**
 * One subscription for every view of the approvals (the header's button, the navigation's badge,
 * Start here, Mediation, the inbox): in browser mode each subscription holds one of the few
 * connections a browser opens to a host, and queries wait behind them once they are used up.
 */
export function ApprovalsProvider({ children }: { children: ReactNode }) {
  return createElement(SharedApprovals.Provider, { value: useApprovalsSubscription(true) }, children);
}

/** Every approval of the data dir, pushed again whenever one is held, decided or ends (in any process). */
export function useApprovals(): ApprovalsState {
  const shared = useContext(SharedApprovals);
  const own = useApprovalsSubscription(shared === undefined);
  return shared ?? own;
}

/** The time now, moved on every `tickMs` while `running`: what a countdown is measured from. */
export function useTickingNow(running: boolean, tickMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), tickMs);
    return () => clearInterval(timer);
  }, [running, tickMs]);
  return now;
}

/** `9:05`, `0:42`, `1:02:05`: how long a Pending approval has before it expires. */
export function formatTimeLeft(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

export function pendingCount(approvals: readonly ToolApproval[] | undefined): number {
  return approvals?.filter((approval) => approval.status.phase === 'Pending').length ?? 0;
}
