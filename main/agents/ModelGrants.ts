import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { modelPatternMatches, ModelPattern } from '../../shared/agents';
import { AppError } from '../../shared/errors';
import { GatewayAgentName } from '../../shared/gateway';
import { JsonFile } from '../platform/JsonFile';

export const AGENT_MODELS_FILE = 'agent-models.json';
/** Tokens each agent spent through mediation on the current UTC day, kept across restarts. */
export const AGENT_TOKENS_FILE = 'agent-tokens.json';

const TokensFile = z.object({ day: z.string(), agents: z.record(z.string(), z.number().int().min(0)) });

const StoredModels = z.object({
  /** `<provider>/<model>` patterns with `*` wildcards; empty: no model. */
  models: z.array(ModelPattern),
  /** Tokens (prompt + completion) the agent may spend per UTC day through mediation. */
  dailyTokens: z.number().int().positive().optional(),
});
const ModelsFile = z.object({ agents: z.record(z.string(), StoredModels) });

/** A cluster's agents answer for their own model grants (their LanguageAgent's annotation). */
export interface ClusterModelGrants {
  knows(name: string): boolean;
  models(name: string): readonly string[];
}

/**
 * Which models each agent may use through mediation, deny by default: an agent spends a provider's
 * key only on the `<provider>/<model>` patterns granted to it (`tooldeck agents models NAME
 * PATTERN…`, the Gateway section; for a cluster's agents, their LanguageAgent's
 * `tooldeck.dev/models` annotation). An optional daily token budget is counted per agent (per UTC
 * day, kept in the data dir so a restart does not reset it) and enforced the same way. Grants are
 * kept in the data dir and read again whenever the file changed (another process may set them
 * while a gateway runs).
 */
export class ModelGrants {
  private readonly file: JsonFile<typeof ModelsFile>;
  private stored = new Map<string, z.infer<typeof StoredModels>>();
  private stamp = '';
  private readonly spent = new Map<string, { day: string; tokens: number }>();
  private readonly tokensFile: JsonFile<typeof TokensFile>;
  private tokensWrite?: ReturnType<typeof setTimeout>;

  constructor(
    dataDir: string,
    private readonly cluster?: ClusterModelGrants,
    private readonly today: () => string = () => new Date().toISOString().slice(0, 10),
  ) {
    this.file = new JsonFile(join(dataDir, AGENT_MODELS_FILE), ModelsFile, () => ({ agents: {} }), { kind: 'agent models file' });
    this.tokensFile = new JsonFile(join(dataDir, AGENT_TOKENS_FILE), TokensFile, () => ({ day: '', agents: {} }), { kind: 'agent tokens file', whenInvalid: 'empty' });
    // What was spent today before this process started still counts.
    try {
      const kept = TokensFile.safeParse(JSON.parse(readFileSync(this.tokensFile.path, 'utf8')));
      if (kept.success && kept.data.day === this.today()) for (const [agent, tokens] of Object.entries(kept.data.agents)) this.spent.set(agent, { day: kept.data.day, tokens });
    } catch {
      // Nothing kept yet.
    }
  }

  /** The patterns granted to `agent` (none unless granted). */
  patterns(agent: string): string[] {
    if (this.cluster?.knows(agent)) return [...this.cluster.models(agent)];
    return [...(this.read().get(agent)?.models ?? [])];
  }

  dailyTokens(agent: string): number | undefined {
    return this.cluster?.knows(agent) ? undefined : this.read().get(agent)?.dailyTokens;
  }

  /** Tokens `agent` spent through mediation today (in this process). */
  tokensToday(agent: string): number {
    const spent = this.spent.get(agent);
    return spent && spent.day === this.today() ? spent.tokens : 0;
  }

  /** Grants `agent` exactly these patterns (none: no model), keeping or setting its daily budget. */
  async grant(agent: string, patterns: readonly string[], options: { dailyTokens?: number | null } = {}): Promise<string[]> {
    const name = GatewayAgentName.safeParse(agent);
    if (!name.success) throw new AppError('InvalidInput', `"${agent}" is not a valid agent name: ${name.error.issues[0]?.message ?? 'invalid'}.`);
    const models: string[] = [];
    for (const pattern of patterns) {
      const parsed = ModelPattern.safeParse(pattern);
      if (!parsed.success) throw new AppError('InvalidInput', `"${pattern.slice(0, 200)}" is not a model pattern: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
      if (!models.includes(parsed.data)) models.push(parsed.data);
    }
    await this.file.update(({ agents }) => {
      const previous = agents[agent];
      const dailyTokens = options.dailyTokens === null ? undefined : (options.dailyTokens ?? previous?.dailyTokens);
      return { next: { agents: { ...agents, [agent]: { models, ...(dailyTokens !== undefined ? { dailyTokens } : {}) } } }, result: undefined };
    });
    this.stamp = '';
    return models;
  }

  /** Why `agent` may not use `model` now (one sentence), or undefined when it may. */
  refusal(agent: string, model: string): string | undefined {
    const patterns = this.patterns(agent);
    if (!patterns.some((pattern) => modelPatternMatches(pattern, model))) {
      return patterns.length === 0
        ? `Agent ${agent} is granted no models; the operator grants them with: tooldeck agents models ${agent} '<provider>/<model>'.`
        : `Agent ${agent} may not use ${model.slice(0, 200)}; it is granted ${patterns.join(', ')}.`;
    }
    const budget = this.dailyTokens(agent);
    if (budget !== undefined && this.tokensToday(agent) >= budget) return `Agent ${agent} has spent its daily budget of ${budget} tokens; it renews at 00:00 UTC.`;
    return undefined;
  }

  /** Counts tokens a mediated turn of `agent` spent; written to the data dir within a second. */
  spend(agent: string, tokens: number): void {
    if (!(tokens > 0)) return;
    const day = this.today();
    const spent = this.spent.get(agent);
    this.spent.set(agent, { day, tokens: (spent && spent.day === day ? spent.tokens : 0) + tokens });
    this.tokensWrite ??= setTimeout(() => void this.flushTokens(), 1000);
    this.tokensWrite.unref?.();
  }

  /** Writes today's counts now (also on close, so nothing counted is lost). */
  async flushTokens(): Promise<void> {
    clearTimeout(this.tokensWrite);
    this.tokensWrite = undefined;
    const day = this.today();
    const agents = Object.fromEntries([...this.spent].filter(([, spent]) => spent.day === day).map(([agent, spent]) => [agent, spent.tokens]));
    await this.tokensFile.write({ day, agents }).catch(() => undefined);
  }

  private read(): Map<string, z.infer<typeof StoredModels>> {
    let stamp = 'absent';
    try {
      const info = statSync(this.file.path, { bigint: true });
      stamp = `${info.mtimeNs}:${info.size}:${info.ino}`;
    } catch {
      // No file: no agent is granted a model.
    }
    if (stamp === this.stamp) return this.stored;
    let next = new Map<string, z.infer<typeof StoredModels>>();
    try {
      const parsed = ModelsFile.safeParse(JSON.parse(readFileSync(this.file.path, 'utf8')));
      if (parsed.success) next = new Map(Object.entries(parsed.data.agents));
    } catch {
      // A damaged file grants no model to anyone.
    }
    this.stored = next;
    this.stamp = stamp;
    return next;
  }
}
