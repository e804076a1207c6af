import type { ClawPod } from '../../../shared/resources/clawPod';
import type { SearchDocument, ToolSearchIndex } from './ToolSearchIndex';

/** What search knows of a saved A2A agent: its card's name and description once the card was read. */
export interface A2aAgentFacts {
  name: string;
  url: string;
  card?: { name: string; description: string; skills: ReadonlyArray<{ name: string; tags?: readonly string[] }> };
}

/** Ids of agent documents: `a2a:<agent>` for A2A agents, `pod:<pod>/<agent>` for agents of pod files. */
export function agentDocuments(a2a: readonly A2aAgentFacts[], pods: readonly ClawPod[]): SearchDocument[] {
  return [
    ...a2a.map((agent) => ({
      id: `a2a:${agent.name}`,
      kind: 'agent' as const,
      name: agent.name,
      ...(agent.card ? { title: agent.card.name, description: agent.card.description } : { description: `A2A agent at ${agent.url}` }),
      source: `a2a:${agent.name}`,
      tags: [...new Set(agent.card?.skills.flatMap((skill) => [skill.name, ...(skill.tags ?? [])]) ?? [])],
    })),
    ...pods.flatMap((pod) =>
      pod.agents.map((agent) => {
        const services = [...new Set([...(agent.tools ?? pod.defaults)].flatMap((item) => (typeof item === 'string' ? pod.defaults : [item])).map((grant) => grant.service ?? grant.source!))];
        return {
          id: `pod:${pod.pod}/${agent.name}`,
          kind: 'agent' as const,
          name: agent.name,
          description: `Agent of pod ${pod.pod}${services.length ? `; may call tools of ${services.join(', ')}` : '; may call no tools'}`,
          source: `pod:${pod.pod}`,
          tags: services,
        };
      }),
    ),
  ];
}

/**
 * Keeps the index's agent documents equal to `docs`: removes the ones gone, re-indexes only the
 * ones that changed (searches call this each time, so an unchanged set costs a comparison).
 */
export class AgentSearchDocuments {
  private indexed = new Map<string, string>();

  constructor(private readonly index: ToolSearchIndex) {}

  replace(docs: readonly SearchDocument[]): void {
    const next = new Map(docs.map((doc) => [doc.id, JSON.stringify(doc)]));
    for (const id of this.indexed.keys()) if (!next.has(id)) this.index.remove(id);
    for (const doc of docs) if (this.indexed.get(doc.id) !== next.get(doc.id)) this.index.upsert(doc);
    this.indexed = next;
  }
}
