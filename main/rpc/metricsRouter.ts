import { z } from 'zod';
import { BreakdownQuery, LatencyHistogramQuery, TimeSeriesQuery } from '../../shared/history';
import { AppError } from '../../shared/errors';
import type { Core } from '../core';
import { callTracing } from '../metrics/CallTracing';
import { procedure, router } from './trpc';

function exportersOf(core: Core) {
  if (!core.metrics) throw new AppError('InvalidInput', 'Metric exporters run in the console (tooldeck serve or the desktop app), not in one-shot commands');
  return core.metrics;
}

export const metricsRouter = router({
  timeSeries: procedure.input(TimeSeriesQuery).query(({ ctx, input }) => ctx.core.history.timeSeries(input)),
  breakdown: procedure.input(BreakdownQuery).query(({ ctx, input }) => ctx.core.history.breakdown(input)),
  histogram: procedure.input(LatencyHistogramQuery).query(({ ctx, input }) => ctx.core.history.latencyHistogram(input)),
  exporters: procedure.query(({ ctx }) => ({
    settings: ctx.core.settings.get().metrics,
    status: exportersOf(ctx.core).status(),
    tracing: { settings: ctx.core.settings.get().tracing, status: callTracing.status() },
  })),
  /** Exports each call's spans (validate, policy, attempts, transport) to an OTLP/HTTP traces endpoint, and remembers the choice. */
  setTraceOtlp: procedure.input(z.object({ enabled: z.boolean(), url: z.string() })).mutation(async ({ ctx, input }) => {
    if (input.enabled) {
      const url = z.url({ protocol: /^https?$/ }).safeParse(input.url);
      if (!url.success) throw new AppError('InvalidInput', 'The OTLP traces URL must be an http(s) URL, e.g. http://127.0.0.1:4318/v1/traces');
    }
    await callTracing.configureOtlp(input.enabled && input.url ? { url: input.url } : undefined);
    await ctx.core.settings.update((s) => ({ ...s, tracing: { otlp: input } }));
    return callTracing.status();
  }),
  /** Turns the Prometheus endpoint on or off (127.0.0.1) and remembers the choice. */
  setPrometheus: procedure.input(z.object({ enabled: z.boolean(), port: z.number().int().min(1).max(65535) })).mutation(async ({ ctx, input }) => {
    const metrics = exportersOf(ctx.core);
    await metrics.stopPrometheus();
    const started = input.enabled ? await metrics.startPrometheus({ port: input.port }) : undefined;
    await ctx.core.settings.update((s) => ({ ...s, metrics: { ...s.metrics, prometheus: input } }));
    return { url: started?.url };
  }),
  setOtlp: procedure
    .input(z.object({ enabled: z.boolean(), url: z.string(), intervalMs: z.number().int().min(1000).default(60_000) }))
    .mutation(async ({ ctx, input }) => {
      const metrics = exportersOf(ctx.core);
      await metrics.configureOtlp(input.enabled && input.url ? { url: input.url, intervalMs: input.intervalMs } : undefined);
      await ctx.core.settings.update((s) => ({ ...s, metrics: { ...s.metrics, otlp: input } }));
      return metrics.status();
    }),
});
