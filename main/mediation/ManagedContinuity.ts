/** Turns kept per agent and agents kept, as Clawdapus's cllama bounds its continuity store. */
export const CONTINUITY_TURNS = 8;
export const CONTINUITY_AGENTS = 256;

interface HiddenTurn {
  /** The visible text of the terminal answer the runner got: where the hidden rounds belong. */
  anchor: string;
  /** The assistant tool-call messages and tool results the runner never saw, in order. */
  hidden: unknown[];
}

/**
 * Continuity for mediated turns (cllama's `managedcontinuity`). A runner sees only the terminal
 * answer of a mediated turn; the managed rounds before it are hidden. When the runner sends its
 * next request, its history holds that answer but not the rounds, so the model would see an answer
 * built on tool results it never received. This store keeps each agent's hidden rounds (bounded)
 * and puts them back right before the assistant message they led to.
 *
 * The anchor is the answer's visible text, matched from the newest turn back to the latest unused
 * assistant message with that text (cllama counts visible assistant messages from the end; text
 * matching gives the same placement for a runner that keeps its history as it got it, and injects
 * nothing when the runner edited or dropped the answer).
 */
export class ManagedContinuity {
  /** Insertion order is recency: a touched agent is moved to the end, the first one is evicted. */
  private readonly agents = new Map<string, HiddenTurn[]>();

  constructor(
    private readonly maxTurns = CONTINUITY_TURNS,
    private readonly maxAgents = CONTINUITY_AGENTS,
  ) {}

  /** Remembers the rounds hidden behind `anchor`, the answer the runner got. */
  observe(agent: string, anchor: string | undefined, hidden: readonly unknown[]): void {
    if (!anchor || hidden.length === 0) return;
    const turns = this.touch(agent) ?? [];
    turns.push({ anchor, hidden: structuredClone([...hidden]) });
    if (turns.length > this.maxTurns) turns.splice(0, turns.length - this.maxTurns);
    this.agents.set(agent, turns);
    while (this.agents.size > this.maxAgents) this.agents.delete(this.agents.keys().next().value!);
  }

  /**
   * The runner's messages with the agent's hidden rounds put back before the answers they led to;
   * `undefined` when there is nothing to put back. `visibleText` reads an assistant message's
   * visible text in the wire format (undefined for any other message).
   */
  inject(agent: string, messages: readonly unknown[], visibleText: (message: unknown) => string | undefined): unknown[] | undefined {
    const turns = this.touch(agent);
    if (!turns || turns.length === 0) return undefined;
    const before = new Map<number, unknown[]>();
    const used = new Set<number>();
    for (const turn of [...turns].reverse()) {
      for (let index = messages.length - 1; index >= 0; index--) {
        if (used.has(index) || visibleText(messages[index]) !== turn.anchor) continue;
        used.add(index);
        before.set(index, turn.hidden);
        break;
      }
    }
    if (before.size === 0) return undefined;
    return messages.flatMap((message, index) => [...structuredClone(before.get(index) ?? []), message]);
  }

  agentsKept(): number {
    return this.agents.size;
  }

  private touch(agent: string): HiddenTurn[] | undefined {
    const turns = this.agents.get(agent);
    if (turns) {
      this.agents.delete(agent);
      this.agents.set(agent, turns);
    }
    return turns;
  }
}
