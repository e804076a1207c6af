import type { McpTool, ToolListDiff } from '../../shared/mcp';
import { canonicalJson } from '../registry/canonicalJson';

const COMPARED_FIELDS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

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
