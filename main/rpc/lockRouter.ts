import { z } from 'zod';
import { CompareInput, NewSourcesPolicy, ReviewDecisionInput, type LockStatus } from '../../shared/lock';
import { watch } from '../platform/AsyncQueue';
import { LINT_RULES } from '../lock/lint/lintRules';
import { diffCardTools } from '../mcpRegistry/serverCard';
import type { Core } from '../core';
import { procedure, router } from './trpc';

/** Changes of the lock's view: the lockfile, and any source's definitions (they arrive through the catalog). */
function onLockOrCatalog(core: Core, notify: () => void): () => void {
  const stopLock = core.lock.onChange(notify);
  const stopCatalog = core.catalog.onChange(notify);
  return () => {
    stopLock();
    stopCatalog();
  };
}

/**
 * The review with each registry-installed remote's Server Card claims beside what it lists: a card
 * is a claim made before connecting; a server that lists tools it never declared (or drops ones it
 * did) is worth a look before its definitions are approved.
 */
async function withServerCards(core: Core, status: LockStatus): Promise<LockStatus> {
  const installed = await core.mcpRegistry.installed().catch(() => ({}) as Awaited<ReturnType<Core['mcpRegistry']['installed']>>);
  return {
    ...status,
    sources: status.sources.map((review) => {
      const declared = review.source.startsWith('mcp:') && review.live ? installed[review.source.slice('mcp:'.length)]?.cardTools : undefined;
      if (!declared) return review;
      const { undeclared, missing } = diffCardTools({ tools: declared.map((name) => ({ name })) }, review.tools.map((tool) => tool.tool));
      return { ...review, card: { declared: declared.length, undeclared, missing } };
    }),
  };
}

/** Tool-definition trust: the lockfile's view of every source, revisions and diffs, approve and reject, the linter. */
export const lockRouter = router({
  status: procedure.query(({ ctx }) => withServerCards(ctx.core, ctx.core.lock.status())),
  watch: procedure.subscription(async function* ({ ctx, signal }) {
    for await (const status of watch((notify) => onLockOrCatalog(ctx.core, notify), () => ctx.core.lock.status(), signal, 100)) yield await withServerCards(ctx.core, status);
  }),
  history: procedure.input(z.object({ source: z.string().min(1) })).query(({ ctx, input }) => ctx.core.lock.history(input.source)),
  compare: procedure.input(CompareInput).query(({ ctx, input }) => ctx.core.lock.compare(input)),
  approve: procedure.input(ReviewDecisionInput).mutation(({ ctx, input }) => ctx.core.lock.approve(input)),
  reject: procedure.input(ReviewDecisionInput).mutation(({ ctx, input }) => ctx.core.lock.reject(input)),
  setNewSources: procedure.input(z.object({ policy: NewSourcesPolicy })).mutation(({ ctx, input }) => ctx.core.lock.setNewSources(input.policy)),
  /** Linter findings of every live source's tools (or one source's). */
  lint: procedure.input(z.object({ source: z.string().optional() }).optional()).query(({ ctx, input }) => ctx.core.lock.lint(input?.source)),
  lintRules: procedure.query(() => LINT_RULES.map((rule) => ({ ...rule }))),
});
