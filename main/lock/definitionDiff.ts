import { diffWordsWithSpace } from 'diff';
import type { DefinitionDiff, DefinitionField, DefinitionHash, RevisionRef, SchemaChange, TextDiffPart, ToolDefinition, ToolDiff } from '../../shared/lock';

/** One side of a comparison: a tool with its hashes, and its definition when this machine has it. */
export interface DiffTool {
  name: string;
  hash: DefinitionHash;
  body: DefinitionHash;
  definition?: ToolDefinition;
  version?: string;
}

const FIELDS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const satisfies readonly DefinitionField[];
/** Word diffs of hostile, huge descriptions must not hang the console: past this, one replacement. */
const TEXT_DIFF_TIMEOUT_MS = 250;

/**
 * What changed between two sets of a source's tools: same name and another hash is `changed`; a
 * name that left and one that arrived with the same body fingerprint is `renamed`; the rest are
 * `added` or `removed`. Each changed tool carries its schema changes (by JSON Pointer) and a word
 * diff of its description and title.
 */
export function definitionDiff(source: string, from: RevisionRef, to: RevisionRef, before: readonly DiffTool[], after: readonly DiffTool[]): DefinitionDiff {
  const old = new Map(before.map((tool) => [tool.name, tool]));
  const now = new Map(after.map((tool) => [tool.name, tool]));
  const tools: ToolDiff[] = [];
  const goneByBody = new Map<string, DiffTool[]>();
  for (const tool of before) {
    if (now.has(tool.name)) continue;
    goneByBody.set(tool.body, [...(goneByBody.get(tool.body) ?? []), tool]);
  }
  const renamedFrom = new Set<string>();
  for (const tool of after) {
    const previous = old.get(tool.name);
    if (previous) {
      const same = previous.hash === tool.hash && previous.version === tool.version;
      tools.push(compareTool(same ? 'unchanged' : 'changed', previous, tool));
      continue;
    }
    const candidates = goneByBody.get(tool.body);
    const from = candidates?.shift();
    if (from) {
      renamedFrom.add(from.name);
      tools.push(compareTool('renamed', from, tool));
    } else tools.push(compareTool('added', undefined, tool));
  }
  for (const tool of before) if (!now.has(tool.name) && !renamedFrom.has(tool.name)) tools.push(compareTool('removed', tool, undefined));
  const order: Record<ToolDiff['change'], number> = { changed: 0, renamed: 1, added: 2, removed: 3, unchanged: 4 };
  tools.sort((a, b) => order[a.change] - order[b.change] || a.name.localeCompare(b.name));
  const counts = { added: 0, removed: 0, renamed: 0, changed: 0, unchanged: 0 };
  for (const tool of tools) counts[tool.change]++;
  return { source, from, to, tools, counts };
}

function compareTool(change: ToolDiff['change'], before: DiffTool | undefined, after: DiffTool | undefined): ToolDiff {
  const name = after?.name ?? before!.name;
  const diff: ToolDiff = {
    change,
    name,
    ...(change === 'renamed' ? { previousName: before!.name } : {}),
    fields: [],
    ...(before?.definition ? { before: before.definition } : {}),
    ...(after?.definition ? { after: after.definition } : {}),
    ...(before ? { beforeHash: before.hash } : {}),
    ...(after ? { afterHash: after.hash } : {}),
    inputSchema: [],
    outputSchema: [],
  };
  if (before && !before.definition && change !== 'added') diff.beforeUnknown = true;
  if (before?.version !== after?.version && before && after) diff.version = { ...(before.version ? { before: before.version } : {}), ...(after.version ? { after: after.version } : {}) };
  if (change !== 'changed' && change !== 'renamed') return diff;
  const a = before?.definition;
  const b = after?.definition;
  if (change === 'renamed') diff.fields.push('name');
  if (diff.version) diff.fields.push('version');
  if (!a || !b) return diff;
  for (const field of FIELDS) if (!sameJson(a[field], b[field])) diff.fields.push(field);
  diff.inputSchema = schemaDiff(a.inputSchema, b.inputSchema);
  diff.outputSchema = schemaDiff(a.outputSchema, b.outputSchema);
  if (a.description !== b.description) diff.description = textDiff(a.description ?? '', b.description ?? '');
  if (a.title !== b.title) diff.title = textDiff(a.title ?? '', b.title ?? '');
  return diff;
}

/** A word diff; a comparison that would take too long becomes one removal and one addition. */
export function textDiff(before: string, after: string): TextDiffPart[] {
  const changes = diffWordsWithSpace(before, after, { timeout: TEXT_DIFF_TIMEOUT_MS });
  if (!changes) return [...(before ? [{ op: '-' as const, text: before }] : []), ...(after ? [{ op: '+' as const, text: after }] : [])];
  return changes.map((change) => ({ op: change.added ? '+' : change.removed ? '-' : '=', text: change.value }));
}

/**
 * Structural changes between two JSON Schemas, by JSON Pointer: added and removed keys, changed
 * values; arrays of plain values (`required`, `enum`) by element, so one new required property
 * reads as one addition.
 */
export function schemaDiff(before: unknown, after: unknown, path = ''): SchemaChange[] {
  if (sameJson(before, after)) return [];
  if (before === undefined) return [{ path, kind: 'added', after }];
  if (after === undefined) return [{ path, kind: 'removed', before }];
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => schemaDiff(before[key], after[key], `${path}/${escapePointer(key)}`));
  }
  if (Array.isArray(before) && Array.isArray(after) && [...before, ...after].every((item) => item === null || typeof item !== 'object')) {
    const removed = before.filter((item) => !after.some((other) => other === item));
    const added = after.filter((item) => !before.some((other) => other === item));
    if (removed.length + added.length > 0) return [...removed.map((item) => ({ path, kind: 'removed' as const, before: item })), ...added.map((item) => ({ path, kind: 'added' as const, after: item }))];
  }
  return [{ path, kind: 'changed', before, after }];
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys(value[key])]));
}
