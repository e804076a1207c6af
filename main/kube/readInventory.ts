import { DeploymentMode, LANGOP_API_VERSION, ToolPhase } from '../../shared/kube';
import type { KubeInventory, KubeInventoryToolRow } from '../../shared/kubeApi';
import { isNotFound } from './KubeApiError';
import type { KubeConnection } from './KubeConnection';
import { definitionsHeld } from './toolDefinitions';
import type { LanguageAgentObject, LanguageToolObject } from './toolResources';

/** Tools per namespace with their phase, endpoint, discovered tool count and the agents that use them. */
export async function readInventory(connection: KubeConnection): Promise<KubeInventory> {
  const scope = connection.namespace ? `/namespaces/${connection.namespace}` : '';
  // Without the CRDs (404) there is simply nothing to list.
  const list = <T>(plural: string) =>
    connection.rest.request<{ items: T[] }>('GET', `/apis/${LANGOP_API_VERSION}${scope}/${plural}`).catch((error: unknown) => {
      if (isNotFound(error)) return { items: [] as T[] };
      throw error;
    });
  const [tools, agents] = await Promise.all([list<LanguageToolObject>('languagetools'), list<LanguageAgentObject>('languageagents')]);
  const namespaces = new Map<string, { tools: KubeInventoryToolRow[]; agents: string[] }>();
  const entry = (ns: string) => {
    let e = namespaces.get(ns);
    if (!e) namespaces.set(ns, (e = { tools: [], agents: [] }));
    return e;
  };
  for (const agent of agents.items) entry(agent.metadata.namespace ?? '').agents.push(agent.metadata.name);
  for (const tool of tools.items) {
    const ns = tool.metadata.namespace ?? '';
    const phase = ToolPhase.safeParse(tool.status?.phase);
    const mode = DeploymentMode.safeParse((tool.spec as { deploymentMode?: unknown } | undefined)?.deploymentMode);
    entry(ns).tools.push({
      name: tool.metadata.name,
      phase: phase.success ? phase.data : tool.status ? 'Unknown' : 'Pending',
      deploymentMode: mode.success ? mode.data : 'service',
      endpoint: tool.status?.endpoint,
      toolCount: tool.status?.availableTools?.length ?? 0,
      agents: agents.items
        .filter((a) => (a.metadata.namespace ?? '') === ns && (a.spec?.tools ?? []).some((ref) => ref.name === tool.metadata.name))
        .map((a) => a.metadata.name)
        .sort(),
      deleting: !!tool.metadata.deletionTimestamp,
      ...(definitionsHeld(tool.status) ? { definitionsChanged: true } : {}),
    });
  }
  return {
    context: connection.context,
    server: connection.server,
    namespaces: [...namespaces.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([namespace, e]) => ({ namespace, tools: e.tools.sort((a, b) => a.name.localeCompare(b.name)), agents: e.agents.sort() })),
  };
}
