import type { McpTool, ToolListDiff } from '../../shared/mcp';

const COMPARED_FIELDS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** Stable JSON (sorted keys), so two schemas that differ only in key order compare equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What a tools/list refresh added, removed or changed (and in which fields). */
export function diffToolLists(before: readonly McpTool[], after: readonly McpTool[], at = Date.now()): ToolListDiff {
  const old = new Map(before.map((t) => [t.name, t]));
  const now = new Map(after.map((t) => [t.name, t]));
  const added = [...now.keys()].filter((n) => !old.has(n)).sort();
  const removed = [...old.keys()].filter((n) => !now.has(n)).sort();
  const changed = [...now.keys()]
    .filter((n) => old.has(n))
    .map((name) => ({
      name,
      fields: COMPARED_FIELDS.filter((f) => canonicalJson(old.get(name)![f]) !== canonicalJson(now.get(name)![f])),
    }))
    .filter((c) => c.fields.length > 0)
    .sort((a, b) => a.name.localeCompare(b.name));
  return { at, added, removed, changed };
}

export function isEmptyDiff(diff: ToolListDiff): boolean {
  return diff.added.length === 0 && diff.removed.length === 0 && diff.changed.length === 0;
}
