import type { DefinitionField, DefinitionHash, NewSourcesPolicy, SourceReview, ToolDefinition, ToolHold, ToolReview } from '../../shared/lock';
import { LOCK_FILE_NAME } from '../../shared/lock';
import type { LockedSource } from './lockFile';

/** A tool as a source lists it now. */
export interface CurrentTool {
  name: string;
  hash: DefinitionHash;
  body: DefinitionHash;
  definition?: ToolDefinition;
  /** tools.v1: the version calls carry. */
  version?: string;
}

export interface ReviewContext {
  /** The source's entry in the lock; undefined when it has none. */
  locked?: LockedSource;
  newSources: NewSourcesPolicy;
  /** False where nothing may be trusted on first use (`lock verify`, `lock status`): unlocked sources are then new. */
  trustOnFirstUse: boolean;
  /** The lockfile cannot be used: nothing counts as approved. */
  lockError?: string;
  /** Approved definitions this machine has seen, to say which fields changed. */
  definitionOf?: (hash: DefinitionHash) => ToolDefinition | undefined;
}

const FIELDS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const satisfies readonly DefinitionField[];

/** Every tool of a source against its lock entry: approved, new, changed, renamed or rejected; and what the lock has that is gone. */
export function reviewSource(source: string, tools: readonly CurrentTool[], ctx: ReviewContext): Omit<SourceReview, 'live' | 'revision'> {
  const locked = ctx.lockError ? undefined : ctx.locked;
  const lockedTools = locked?.tools ?? {};
  const names = new Set(tools.map((tool) => tool.name));
  // Approved tools whose name is gone, by body: where a renamed tool came from.
  const goneByBody = new Map<string, string>();
  for (const [name, entry] of Object.entries(lockedTools)) if (!names.has(name) && entry.hash && entry.body && !goneByBody.has(entry.body)) goneByBody.set(entry.body, name);

  const reviews = tools.map((tool): ToolReview => {
    const base = { tool: tool.name, hash: tool.hash, body: tool.body, ...(tool.version !== undefined ? { version: tool.version } : {}) };
    if (ctx.lockError || !locked) {
      const approved = !ctx.lockError && ctx.newSources === 'trust-on-first-use' && ctx.trustOnFirstUse;
      return { ...base, state: approved ? 'approved' : 'new', changes: [] };
    }
    const entry = lockedTools[tool.name];
    const lockedVersion = entry?.version !== undefined ? { lockedVersion: entry.version } : {};
    if (entry?.rejected?.includes(tool.hash)) return { ...base, ...lockedVersion, state: 'rejected', ...(entry.hash ? { approvedHash: entry.hash } : {}), changes: changedFields(tool, entry.hash, ctx) };
    if (entry?.hash === tool.hash) {
      const versionMoved = entry.version !== undefined && tool.version !== undefined && entry.version !== tool.version;
      return { ...base, ...lockedVersion, state: versionMoved ? 'changed' : 'approved', approvedHash: entry.hash, changes: versionMoved ? ['version'] : [] };
    }
    if (entry?.hash) {
      const changes = changedFields(tool, entry.hash, ctx);
      if (entry.version !== undefined && tool.version !== undefined && entry.version !== tool.version) changes.push('version');
      return { ...base, ...lockedVersion, state: 'changed', approvedHash: entry.hash, changes };
    }
    const from = goneByBody.get(tool.body);
    if (from !== undefined) {
      const fromEntry = lockedTools[from]!;
      return { ...base, state: 'renamed', previousName: from, approvedHash: fromEntry.hash!, changes: ['name'] };
    }
    return { ...base, state: 'new', changes: [] };
  });

  const renamedTo = new Map(reviews.flatMap((review) => (review.state === 'renamed' && review.previousName ? [[review.previousName, review.tool] as const] : [])));
  const removed = Object.entries(lockedTools)
    .filter(([name, entry]) => !names.has(name) && entry.hash)
    .map(([name, entry]) => ({ tool: name, hash: entry.hash!, ...(renamedTo.has(name) ? { renamedTo: renamedTo.get(name)! } : {}) }))
    .sort((a, b) => a.tool.localeCompare(b.tool));
  return { source, locked: !!locked, tools: reviews, removed, held: reviews.filter((review) => review.state !== 'approved').length };
}

function changedFields(tool: CurrentTool, approvedHash: DefinitionHash | undefined, ctx: ReviewContext): DefinitionField[] {
  const before = approvedHash ? ctx.definitionOf?.(approvedHash) : undefined;
  if (!before || !tool.definition) return [];
  const after = tool.definition;
  const fields: DefinitionField[] = before.name !== after.name ? ['name'] : [];
  for (const field of FIELDS) if (JSON.stringify(sorted(before[field])) !== JSON.stringify(sorted(after[field]))) fields.push(field);
  return fields;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted((value as Record<string, unknown>)[key])]));
}

/** The hold a review puts on a registry entry; undefined when it is approved. */
export function holdOf(source: string, review: ToolReview, ctx: Pick<ReviewContext, 'lockError' | 'locked' | 'newSources'>): ToolHold | undefined {
  if (review.state === 'approved') return undefined;
  return {
    source,
    tool: review.tool,
    state: review.state,
    hash: review.hash,
    ...(review.approvedHash ? { approvedHash: review.approvedHash } : {}),
    ...(review.previousName ? { previousName: review.previousName } : {}),
    changes: review.changes,
    reason: holdReason(source, review, ctx),
  };
}

export function holdReason(source: string, review: ToolReview, ctx: Pick<ReviewContext, 'lockError' | 'locked' | 'newSources'>): string {
  if (ctx.lockError) return `${LOCK_FILE_NAME} cannot be used (${ctx.lockError}), so no definition is approved`;
  switch (review.state) {
    case 'approved':
      return `approved in ${LOCK_FILE_NAME}`;
    case 'rejected':
      return `this definition of ${review.tool} was rejected in ${LOCK_FILE_NAME}`;
    case 'renamed':
      return `it is ${review.previousName} renamed, with the same definition, since ${LOCK_FILE_NAME} approved ${source}`;
    case 'new':
      return ctx.locked ? `it is new since ${LOCK_FILE_NAME} approved ${source}` : `${source} has no entry in ${LOCK_FILE_NAME} and new sources are held for review`;
    case 'changed': {
      if (review.changes.length === 1 && review.changes[0] === 'version') return `its version changed from ${review.lockedVersion} to ${review.version} since ${LOCK_FILE_NAME} approved it`;
      const fields = review.changes.filter((field) => field !== 'version');
      const what = fields.length ? `its ${joinWords(fields)} changed` : 'its definition changed';
      const version = review.changes.includes('version') ? ` and its version moved from ${review.lockedVersion} to ${review.version}` : '';
      return `${what}${version} since ${LOCK_FILE_NAME} approved it`;
    }
  }
}

function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
