import { keepPreviousData, useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { InvocationFilter } from '../../../../shared/history';
import type { InvocationRecord } from '../../../../shared/invocation';
import { useTRPC } from '../../rpc/client';
import { matchesFilter } from './historyFilter';
import { useLiveCalls, type LiveStatus } from './useLiveCalls';

const PAGE_SIZE = 200;
const COUNT_REFRESH_MS = 1_000;

export interface CallHistory {
  /** Newest first: live arrivals on top of the loaded pages, each call once. */
  rows: InvocationRecord[];
  /** All calls matching the filter, when known. */
  total: number | undefined;
  loading: boolean;
  error: string | undefined;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore: () => void;
  /** Puts a call the view learned about itself (a replay) on top, if it matches. */
  add: (record: InvocationRecord) => void;
  refetch: () => void;
  liveStatus: LiveStatus;
}

/** Pages of `history.list` for one filter, kept current by `history.live`. */
export function useCallHistory(filter: InvocationFilter): CallHistory {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const key = JSON.stringify(filter);
  const pages = useInfiniteQuery(
    trpc.history.list.infiniteQueryOptions({ ...filter, limit: PAGE_SIZE }, { getNextPageParam: (page) => page.nextCursor, staleTime: 0 }),
  );
  const countOptions = trpc.history.count.queryOptions(filter);
  const count = useQuery({ ...countOptions, placeholderData: keepPreviousData });

  // Live rows belong to the filter they were matched against; a new filter starts empty.
  const [live, setLive] = useState<{ key: string; rows: InvocationRecord[] }>({ key, rows: [] });
  const liveRows = useMemo(() => (live.key === key ? live.rows : []), [live, key]);

  const countTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(countTimer.current), []);

  const add = useCallback(
    (record: InvocationRecord) => {
      if (!matchesFilter(record, filter)) return;
      setLive((prev) => ({ key, rows: [record, ...(prev.key === key ? prev.rows.filter((r) => r.id !== record.id) : [])] }));
      // Many calls a second would otherwise mean a count query each.
      if (countTimer.current === undefined) {
        countTimer.current = setTimeout(() => {
          countTimer.current = undefined;
          void queryClient.invalidateQueries({ queryKey: countOptions.queryKey });
        }, COUNT_REFRESH_MS);
      }
    },
    [filter, key, queryClient, countOptions.queryKey],
  );
  const { status: liveStatus } = useLiveCalls(add);

  const rows = useMemo(() => {
    const seen = new Set<string>();
    const all: InvocationRecord[] = [];
    for (const record of [...liveRows, ...(pages.data?.pages.flatMap((p) => p.items) ?? [])]) {
      if (seen.has(record.id)) continue;
      seen.add(record.id);
      all.push(record);
    }
    return all;
  }, [liveRows, pages.data]);

  const { fetchNextPage, hasNextPage, isFetchingNextPage } = pages;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [fetchNextPage, hasNextPage, isFetchingNextPage]);

  const refetch = useCallback(() => {
    setLive({ key, rows: [] });
    void pages.refetch();
    void count.refetch();
  }, [key, pages, count]);

  return {
    rows,
    total: count.data,
    loading: pages.isPending,
    error: pages.error?.message ?? count.error?.message,
    hasMore: hasNextPage,
    loadingMore: isFetchingNextPage,
    loadMore,
    add,
    refetch,
    liveStatus,
  };
}
