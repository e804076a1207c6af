import { z } from 'zod';
import { ApprovalDecision, ApprovalName } from '../../shared/approvals';
import { AppError } from '../../shared/errors';
import type { Caller } from '../../shared/caller';
import { operatorName } from '../approvals/operatorName';
import { watch } from '../platform/AsyncQueue';
import { procedure, router } from './trpc';

/** Only the operator decides: an agent's credential never opens the console, and this says so if one ever did. */
function requireOperator(caller: Caller) {
  if (caller.who !== 'operator') throw new AppError('PolicyDenied', `Agent ${caller.who.agent} cannot decide approvals: only the operator can.`);
}

/** Calls held for a person's approval: the inbox, its live updates, and the decision. */
export const approvalsRouter = router({
  list: procedure.query(({ ctx }) => ctx.core.approvals.list()),
  get: procedure.input(z.object({ name: ApprovalName })).query(({ ctx, input }) => ctx.core.approvals.get(input.name)),
  /** The list again after every change, from this process or any other on the same data dir. */
  watch: procedure.subscription(async function* ({ ctx, signal }) {
    for await (const approvals of watch((notify) => ctx.core.approvals.onChange(notify), () => ctx.core.approvals.list(), signal, 100)) yield await approvals;
  }),
  decide: procedure
    .input(ApprovalDecision.extend({ decidedBy: z.string().max(200).optional() }))
    .mutation(({ ctx, input }) => {
      requireOperator(ctx.caller);
      return ctx.core.approvals.decide(input.name, input.decision, input.decidedBy ?? operatorName(), input.comment);
    }),
});
