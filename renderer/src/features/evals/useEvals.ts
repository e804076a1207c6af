import { useMutation, useQuery } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import type { EvalReport, EvalRun, EvalSuite } from '../../../../shared/evals';
import { useTRPC } from '../../rpc/client';

/** An `evals/*.yml` file as the backend lists it. */
export interface SuiteFile {
  file: string;
  suite?: EvalSuite;
  problem?: string;
}

/** A suite run started from the console (main/evals/Evals.ts `EvalRunView`). */
export interface EvalRunView {
  id: string;
  file: string;
  suite: string;
  models: string[];
  state: 'running' | 'done' | 'failed' | 'canceled';
  startedAt: number;
  done: number;
  planned: number;
  results: { case: string; model: string; run: EvalRun }[];
  report?: EvalReport;
  error?: string;
  /** The sources that did not connect before the run started, in one sentence. */
  notConnected?: string;
}

export function useEvalSuites() {
  const trpc = useTRPC();
  return useQuery(trpc.evals.suites.queryOptions());
}

export function useProviders() {
  const trpc = useTRPC();
  return useQuery(trpc.evals.providers.queryOptions());
}

/** `provider/model` suggestions: each provider's listed models, else its prefix alone. */
export function useModelSuggestions(): string[] {
  const trpc = useTRPC();
  const providers = useProviders();
  const models = useQuery({ ...trpc.evals.models.queryOptions(), staleTime: 60_000 });
  const listed = (models.data ?? []).flatMap((item) => item.models.map((model) => `${item.provider}/${model}`));
  const prefixes = (providers.data ?? []).filter((provider) => !listed.some((model) => model.startsWith(`${provider.name}/`))).map((provider) => `${provider.name}/`);
  return [...prefixes, ...listed];
}

/** The console's runs, newest first, pushed again as each progresses. */
export function useEvalRuns(): { runs: EvalRunView[] | undefined; error: string | undefined } {
  const trpc = useTRPC();
  const sub = useSubscription(trpc.evals.watchRuns.subscriptionOptions());
  return { runs: sub.data as EvalRunView[] | undefined, error: sub.error?.message };
}

export function useRunSuite() {
  const trpc = useTRPC();
  return useMutation(trpc.evals.run.mutationOptions());
}

export function useCancelRun() {
  const trpc = useTRPC();
  return useMutation(trpc.evals.cancel.mutationOptions());
}
