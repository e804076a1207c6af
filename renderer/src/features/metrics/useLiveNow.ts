import { useCallback, useEffect, useRef, useState } from 'react';
import type { InvocationRecord } from '../../../../shared/invocation';
import { useLiveCalls, type LiveStatus } from '../history/useLiveCalls';

/** While calls stream in, the view is re-read at most this often. */
const LIVE_REFRESH_MS = 1_000;

export interface LiveNowOptions {
  /** Off when the range ends in the past: nothing new can enter it. */
  live: boolean;
  /** Only calls this accepts trigger a refresh (e.g. one tool's). */
  accept?: (record: InvocationRecord) => boolean;
  /** Also slide the window forward this often, for calls made by other processes (the CLI). */
  tickMs?: number;
}

/**
 * The "now" a relative time window is anchored at. It moves when a relevant call is recorded (at
 * most once a second, however fast calls arrive), on a slow tick, and on `refresh`; queries keyed
 * on the window then fetch again.
 */
export function useLiveNow({ live, accept, tickMs }: LiveNowOptions): { now: number; status: LiveStatus; refresh: () => void } {
  const [now, setNow] = useState(() => Date.now());
  const pending = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(pending.current), []);

  const onCall = useCallback(
    (record: InvocationRecord) => {
      if (accept && !accept(record)) return;
      if (pending.current !== undefined) return;
      pending.current = setTimeout(() => {
        pending.current = undefined;
        setNow(Date.now());
      }, LIVE_REFRESH_MS);
    },
    [accept],
  );
  const { status } = useLiveCalls(onCall, live);

  useEffect(() => {
    if (!live || !tickMs) return;
    const timer = setInterval(() => setNow(Date.now()), tickMs);
    return () => clearInterval(timer);
  }, [live, tickMs]);

  const refresh = useCallback(() => setNow(Date.now()), []);
  return { now, status, refresh };
}
