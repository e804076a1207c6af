import { useSubscription } from '@trpc/tanstack-react-query';
import { useEffect, useRef } from 'react';
import type { InvocationRecord } from '../../../../shared/invocation';
import { useTRPC } from '../../rpc/client';

export type LiveStatus = 'idle' | 'connecting' | 'pending' | 'error';

/** Every call as it is recorded (from any entry point of this process), handed to `onCall`. */
export function useLiveCalls(onCall: (record: InvocationRecord) => void, enabled = true): { status: LiveStatus } {
  const trpc = useTRPC();
  const handler = useRef(onCall);
  useEffect(() => {
    handler.current = onCall;
  }, [onCall]);
  const subscription = useSubscription(trpc.history.live.subscriptionOptions(undefined, { enabled, onData: (record) => handler.current(record) }));
  return { status: subscription.status };
}
