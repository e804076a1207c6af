import { AppError } from '../../shared/errors';
import type { Logger } from '../platform/Logger';
import type { ToolCatalog } from '../registry/ToolCatalog';
import type { ToolSourceKind } from '../registry/ToolSourceKind';
import type { A2aAgentService } from './A2aAgentService';
import { A2aCatalogSync } from './A2aCatalogSync';

export interface A2aSourceKindDeps {
  readonly agents: A2aAgentService;
  readonly catalog: ToolCatalog;
  readonly logger: Logger;
}

/**
 * A2A agents as a source kind: a saved agent's skills (read from its card by A2aCatalogSync) and
 * its two turn entries are registry entries; an agent addressed by URL lasts only for that command.
 */
export class A2aSourceKind implements ToolSourceKind<'a2a'> {
  readonly kind = 'a2a';
  /** Reads agents' cards and registers their skills and turn entries. */
  readonly catalogSync: A2aCatalogSync;

  constructor(private readonly deps: A2aSourceKindDeps) {
    this.catalogSync = new A2aCatalogSync(deps.agents, deps.catalog, deps.logger);
  }

  async prepare(name: string): Promise<void> {
    // A saved agent's turn entries stay registered while its card cannot be read: only skills say it was.
    const hasSkills = () => this.catalogSync.hasSkills(name);
    if (hasSkills()) return;
    if (!(await this.deps.agents.list()).some((agent) => agent.name === name)) throw new AppError('NotFound', `No saved agent named "${name}"`);
    await this.catalogSync.sync(name);
    if (!hasSkills()) throw new AppError('ConnectionFailed', `Agent "${name}" has no skills registered: its card could not be read`);
  }

  /** An agent addressed by its URL (`a2a:https://…`) is a one-off target; a named one is saved. */
  lasting(name: string): boolean {
    return !/^https?:/i.test(name);
  }

  async endpoints(): Promise<Record<string, string>> {
    return Object.fromEntries((await this.deps.agents.list()).map((agent) => [agent.name, agent.url]));
  }

  async savedSources(): Promise<string[]> {
    return (await this.deps.agents.list()).map((agent) => agent.name);
  }

  close(): Promise<void> {
    return this.deps.agents.close();
  }
}
