import { z } from 'zod';
import { DefinitionHash, NewSourcesPolicy } from '../../shared/lock';
import { JsonFile } from '../platform/JsonFile';
import type { LockedTool, LockModel } from './lockFile';

/** `<dataDir>/lock-decisions.json`: the user's own review decisions, kept outside every workspace folder. */
export const USER_LOCK_DECISIONS_FILE = 'lock-decisions.json';

const ApprovedDefinition = z.object({ hash: DefinitionHash, body: DefinitionHash.optional(), version: z.string().min(1).optional() });
type ApprovedDefinition = z.infer<typeof ApprovedDefinition>;

const ToolDecisions = z.object({
  /** Definitions the user approved, oldest first. */
  approved: z.array(ApprovedDefinition).default([]),
  /** Definitions the user rejected. */
  rejected: z.array(DefinitionHash).default([]),
});
type ToolDecisions = z.infer<typeof ToolDecisions>;

const DecisionsContent = z.object({
  /** The user's choice for sources the lock has no entry for, when they made one. */
  newSources: NewSourcesPolicy.optional(),
  sources: z.record(z.string(), z.object({ tools: z.record(z.string(), ToolDecisions).default({}) })).default({}),
});
export type UserDecisionsModel = z.infer<typeof DecisionsContent>;

interface DecidedTool {
  name: string;
  hash: DefinitionHash;
  body?: DefinitionHash;
  version?: string;
}

/**
 * The review decisions the user made in this console (approve, reject, the new-sources policy),
 * whatever folder was open. A folder's `tooldeck.lock` is merged under them (mergeUserDecisions),
 * so opening a folder — a cloned repository — never loosens what the user already decided.
 */
export class UserLockDecisions {
  private readonly file: JsonFile<typeof DecisionsContent>;
  private model: UserDecisionsModel = { sources: {} };

  constructor(path: string) {
    this.file = new JsonFile(path, DecisionsContent, () => ({ sources: {} }), { kind: 'lock decisions file' });
  }

  get current(): UserDecisionsModel {
    return this.model;
  }

  /**
   * Reads the decisions. A file that cannot be used loses the user's rejections, so until it is
   * fixed or deleted nothing a folder approves counts unless the user approves it again (as if the
   * user held new sources); the reason is returned for the log.
   */
  async load(): Promise<string | undefined> {
    try {
      this.model = await this.file.read();
      return undefined;
    } catch (error) {
      this.model = { newSources: 'hold', sources: {} };
      return `${this.file.path} cannot be used (${(error as Error).message}); new sources and folder approvals are held until it is fixed or deleted`;
    }
  }

  approve(source: string, tools: readonly DecidedTool[]): Promise<void> {
    return this.change(source, tools, (decisions, tool) => ({
      approved: [...decisions.approved.filter((approved) => approved.hash !== tool.hash), { hash: tool.hash, ...(tool.body ? { body: tool.body } : {}), ...(tool.version !== undefined ? { version: tool.version } : {}) }],
      rejected: decisions.rejected.filter((hash) => hash !== tool.hash),
    }));
  }

  reject(source: string, tools: readonly DecidedTool[]): Promise<void> {
    return this.change(source, tools, (decisions, tool) => ({
      approved: decisions.approved.filter((approved) => approved.hash !== tool.hash),
      rejected: [...new Set([...decisions.rejected, tool.hash])],
    }));
  }

  /** The user dropped the source from the lock: their approvals go, their rejections stay. */
  async forget(source: string): Promise<void> {
    await this.update((current) => {
      const tools = Object.fromEntries(
        Object.entries(current.sources[source]?.tools ?? {}).flatMap(([name, decisions]) => (decisions.rejected.length ? [[name, { approved: [], rejected: decisions.rejected }]] : [])),
      );
      const { [source]: _dropped, ...others } = current.sources;
      return { ...current, sources: Object.keys(tools).length ? { ...others, [source]: { tools } } : others };
    });
  }

  async setNewSources(policy: NewSourcesPolicy): Promise<void> {
    await this.update((current) => ({ ...current, newSources: policy }));
  }

  private change(source: string, tools: readonly DecidedTool[], decide: (decisions: ToolDecisions, tool: DecidedTool) => ToolDecisions): Promise<void> {
    return this.update((current) => {
      const known = { ...(current.sources[source]?.tools ?? {}) };
      for (const tool of tools) known[tool.name] = decide(known[tool.name] ?? { approved: [], rejected: [] }, tool);
      return { ...current, sources: { ...current.sources, [source]: { tools: known } } };
    });
  }

  private async update(change: (current: UserDecisionsModel) => UserDecisionsModel): Promise<void> {
    this.model = await this.file.update((current) => {
      const next = change(current);
      return { next, result: next };
    });
  }
}

/**
 * The lock that applies: a folder's `tooldeck.lock` under the user's decisions, which win:
 * - a definition the user rejected is rejected, whatever the folder approves (and trust on first use
 *   never approves it either: DefinitionLock.trustFirstUse);
 * - when the user holds new sources, the folder's approval counts only for definitions the user
 *   approved: a tool is judged against the user's latest approval (held as changed), and one the
 *   user never approved is held as new;
 * - when the user trusts new sources on first use, the folder's approvals count as a first use
 *   would (a source of that name in a folder without a lock would be approved at first sight anyway);
 * - `newSources` is `hold` when either the folder or the user says so.
 * Definitions a folder approves never become the user's decisions.
 */
export function mergeUserDecisions(folder: LockModel, user: UserDecisionsModel): LockModel {
  const userHolds = user.newSources === 'hold';
  const sources: LockModel['sources'] = {};
  for (const [source, entry] of Object.entries(folder.sources)) {
    const decided = user.sources[source]?.tools ?? {};
    const tools: Record<string, LockedTool> = {};
    for (const name of new Set([...Object.keys(entry.tools), ...Object.keys(decided)])) {
      const merged = mergeTool(entry.tools[name], decided[name], userHolds);
      if (merged) tools[name] = merged;
    }
    sources[source] = { tools };
  }
  return { ...folder, newSources: folder.newSources === 'hold' || userHolds ? 'hold' : 'trust-on-first-use', sources };
}

function mergeTool(locked: LockedTool | undefined, decided: ToolDecisions | undefined, userHolds: boolean): LockedTool | undefined {
  const rejected = [...new Set([...(locked?.rejected ?? []), ...(decided?.rejected ?? [])])];
  let approved: ApprovedDefinition | undefined = locked?.hash ? { hash: locked.hash, ...(locked.body ? { body: locked.body } : {}), ...(locked.version !== undefined ? { version: locked.version } : {}) } : undefined;
  if (approved && rejected.includes(approved.hash)) approved = undefined;
  else if (approved && userHolds && !decided?.approved.some((mine) => mine.hash === approved!.hash)) approved = decided?.approved.at(-1);
  // A tool the folder does not list, only ever rejected by the user: refused if it appears.
  if (!locked && !decided?.rejected.length) return undefined;
  if (!approved && rejected.length === 0) return undefined;
  return { ...(approved ? { hash: approved.hash, ...(approved.body ? { body: approved.body } : {}), ...(approved.version !== undefined ? { version: approved.version } : {}) } : {}), ...(rejected.length ? { rejected } : {}) };
}

/** Whether the user rejected this definition of the tool (trust on first use must not approve it). */
export function userRejected(user: UserDecisionsModel, source: string, tool: string, hash: DefinitionHash): boolean {
  return user.sources[source]?.tools[tool]?.rejected.includes(hash) ?? false;
}
