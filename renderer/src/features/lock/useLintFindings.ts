import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import type { LintFinding } from '../../../../shared/lock';
import { useTRPC } from '../../rpc/client';

/** Linter findings by registry name (`mcp:everything.echo`), read again whenever the tools change. */
export function useLintFindings(toolsVersion: unknown): Map<string, LintFinding[]> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const lint = useQuery(trpc.lock.lint.queryOptions());
  useEffect(() => void queryClient.invalidateQueries({ queryKey: trpc.lock.lint.pathKey() }), [toolsVersion, queryClient, trpc]);
  return useMemo(() => {
    const byTool = new Map<string, LintFinding[]>();
    for (const finding of lint.data ?? []) {
      const key = `${finding.source}.${finding.tool}`;
      byTool.set(key, [...(byTool.get(key) ?? []), finding]);
    }
    return byTool;
  }, [lint.data]);
}
