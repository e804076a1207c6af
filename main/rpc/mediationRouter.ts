import { z } from 'zod';
import type { MediatedTurn, ModelProviderView } from '../../shared/mediation';
import { INPUT_LIMITS } from '../../shared/inputLimits';
import { watch } from '../platform/AsyncQueue';
import { ProviderFormat, ProviderName } from '../mediation/ModelProviders';
import { procedure, router } from './trpc';

const AddProviderInput = z.object({
  name: ProviderName,
  format: ProviderFormat,
  baseUrl: z.string().min(1).max(2000),
  /** Sent once, sealed in the secret store; never read back. Empty: keep no key. */
  apiKey: z.string().max(10_000).optional(),
});

/** At most this many turns go to the console at once (the newest). */
const TURNS_SHOWN = 200;

/**
 * The console's Mediation section: the model providers mediation forwards to (keys go in, never
 * come out), and every agent's mediated turns round by round. Only the operator reaches this
 * router; an agent reads its own turns on the gateway's port (`GET /history/{agent}`).
 */
export const mediationRouter = router({
  providers: procedure.query(async ({ ctx }): Promise<ModelProviderView[]> => ctx.core.providers.list()),
  addProvider: procedure.input(AddProviderInput).mutation(async ({ ctx, input }): Promise<ModelProviderView> => ctx.core.providers.add({ ...input, ...(input.apiKey ? { apiKey: input.apiKey } : { apiKey: undefined }) })),
  removeProvider: procedure.input(z.object({ name: z.string().min(1).max(200) })).mutation(({ ctx, input }) => ctx.core.providers.remove(input.name)),
  /** Clawdapus cllama's providers.json, pasted or picked as a file. */
  importProviders: procedure.input(z.object({ text: z.string().max(INPUT_LIMITS.providersFile.maxBytes) })).mutation(({ ctx, input }) => ctx.core.providers.importCllama(input.text)),
  /** Every agent's mediated turns, newest first, then again as each turn ends. */
  watchTurns: procedure.subscription(async function* ({ ctx, signal }) {
    yield* watch((notify) => ctx.core.mediation.onTurn(() => notify()), (): MediatedTurn[] => ctx.core.mediation.allTurns().slice(0, TURNS_SHOWN), signal, 100);
  }),
});
