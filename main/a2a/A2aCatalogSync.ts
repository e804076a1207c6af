import type { A2aCardView } from '../../shared/a2a';
import type { ToolEntry, ToolResult } from '../../shared/registry';
import type { Logger } from '../platform/Logger';
import { createToolEntry } from '../registry/createToolEntry';
import type { ToolCatalog } from '../registry/ToolCatalog';
import type { ExecutionContext, ToolExecutor } from '../registry/types';
import type { A2aAgentService } from './A2aAgentService';
import { A2aSkillExecutor, skillEntries } from './A2aSkillExecutor';
import { A2aTurnExecutor, isTurnEntry, turnEntries } from './A2aTurns';

/**
 * Runs a2a:<agent>.<skill> entries (one message per call, the task's end as the result) and the
 * agent's turn entries (a2a:<agent>.SendMessage and SendStreamingMessage, see A2aTurns).
 */
class A2aAgentToolExecutor implements ToolExecutor {
  private readonly turns: A2aTurnExecutor;

  constructor(
    agents: A2aAgentService,
    private readonly skills: A2aSkillExecutor,
    private readonly agent: string,
  ) {
    this.turns = new A2aTurnExecutor(agents, agent);
  }

  async execute(entry: ToolEntry, args: Record<string, unknown>, ctx: ExecutionContext): Promise<ToolResult> {
    if (isTurnEntry(entry)) return this.turns.execute(entry, args, ctx);
    return (await this.skills.invokeSkill(this.agent, entry.toolName, args, { signal: ctx.signal, trace: ctx.span })) as ToolResult;
  }
}

/**
 * Each saved agent's skills are registry entries (source `a2a:<agent>`), found and called like
 * tools, and so are its two turn entries (a conversation turn is a call of them).
 */
export class A2aCatalogSync {
  private readonly skills: A2aSkillExecutor;
  /** The card each agent had at its last sync, for search; absent while unreachable. */
  private readonly cards = new Map<string, A2aCardView>();

  constructor(
    private readonly agents: A2aAgentService,
    private readonly catalog: ToolCatalog,
    private readonly logger: Logger,
  ) {
    this.skills = new A2aSkillExecutor(agents);
  }

  /**
   * Reads the agent's card (fetching it if needed) and registers its skills and turn entries. An
   * unreachable agent has no skills but keeps its turn entries: a turn sent to it then fails, and is
   * recorded, with the real reason.
   */
  async sync(agent: string): Promise<void> {
    const source = { kind: 'a2a' as const, name: agent };
    const saved = (await this.agents.list()).some((a) => a.name === agent);
    if (!saved) {
      this.cards.delete(agent);
      this.catalog.removeSource(source);
      return;
    }
    try {
      const card = await this.agents.card(agent);
      this.cards.set(agent, card);
      const entries = skillEntries(agent, card).map((skill) =>
        createToolEntry({
          source,
          tool: { name: skill.toolName, title: skill.title, description: skill.description, inputSchema: skill.inputSchema, annotations: { openWorldHint: true } },
          tags: skill.tags,
        }),
      );
      this.catalog.replaceSource(source, [...entries, ...turnEntries(agent)], new A2aAgentToolExecutor(this.agents, this.skills, agent));
    } catch (error) {
      this.cards.delete(agent);
      this.catalog.replaceSource(source, turnEntries(agent), new A2aAgentToolExecutor(this.agents, this.skills, agent));
      this.logger.warn('a2a skills not registered', { agent, error: (error as Error).message });
    }
  }

  /** Whether the agent's skills are registered (its turn entries are, for a saved agent, even while its card cannot be read). */
  hasSkills(agent: string): boolean {
    return this.catalog.list({ source: `a2a:${agent}` }).some((entry) => !isTurnEntry(entry));
  }

  cardOf(agent: string): A2aCardView | undefined {
    return this.cards.get(agent);
  }

  async syncAll(): Promise<void> {
    await Promise.all((await this.agents.list()).map((a) => this.sync(a.name)));
  }
}
