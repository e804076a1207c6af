type FieldSet = Record<string, unknown>;

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsV1?: FieldSet;
}

/**
 * The part of a live object that `manager` owns through server-side apply, read from
 * metadata.managedFields (FieldsV1). Comparing it with the next apply configuration tells whether
 * an apply would change anything, including fields the manager applied before and now drops.
 * Returns undefined when the manager owns nothing.
 */
export function extractOwned(obj: { metadata?: object }, manager: string, subresource = ''): Record<string, unknown> | undefined {
  const managedFields = (obj.metadata as { managedFields?: ManagedFieldsEntry[] } | undefined)?.managedFields ?? [];
  const entries = managedFields.filter((e) => e.manager === manager && e.operation === 'Apply' && (e.subresource ?? '') === subresource && e.fieldsV1);
  if (entries.length === 0) return undefined;
  const fields = entries.map((e) => e.fieldsV1!).reduce(mergeFieldSets);
  return extract(obj, fields) as Record<string, unknown>;
}

function extract(value: unknown, fields: FieldSet): unknown {
  if (Array.isArray(value)) return extractList(value, fields);
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(fields)) {
    if (!key.startsWith('f:')) continue;
    const name = key.slice(2);
    if (!(name in source)) continue;
    out[name] = hasChildren(sub) ? extract(source[name], sub as FieldSet) : source[name];
  }
  return out;
}

function extractList(items: unknown[], fields: FieldSet): unknown[] {
  const keyed: Array<{ match: Record<string, unknown>; sub: FieldSet }> = [];
  const values: unknown[] = [];
  const indexes = new Map<number, FieldSet>();
  for (const [key, sub] of Object.entries(fields)) {
    if (key.startsWith('k:')) keyed.push({ match: JSON.parse(key.slice(2)) as Record<string, unknown>, sub: sub as FieldSet });
    else if (key.startsWith('v:')) values.push(JSON.parse(key.slice(2)));
    else if (key.startsWith('i:')) indexes.set(Number(key.slice(2)), sub as FieldSet);
  }
  // Live order is kept: it is what the workload sees (env order matters for $(VAR) references).
  const out: unknown[] = [];
  items.forEach((item, index) => {
    const byKey = keyed.find((k) => matchesKey(item, k.match));
    if (byKey) out.push(hasChildren(byKey.sub) ? extract(item, byKey.sub) : item);
    else if (values.some((v) => JSON.stringify(v) === JSON.stringify(item))) out.push(item);
    else if (indexes.has(index)) {
      const sub = indexes.get(index)!;
      out.push(hasChildren(sub) ? extract(item, sub) : item);
    }
  });
  return out;
}

function matchesKey(item: unknown, match: Record<string, unknown>): boolean {
  if (item === null || typeof item !== 'object') return false;
  const record = item as Record<string, unknown>;
  return Object.entries(match).every(([k, v]) => JSON.stringify(record[k]) === JSON.stringify(v));
}

function hasChildren(sub: unknown): boolean {
  return sub !== null && typeof sub === 'object' && Object.keys(sub).some((k) => k !== '.');
}

function mergeFieldSets(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = out[key];
    out[key] = existing && typeof existing === 'object' && value && typeof value === 'object' ? mergeFieldSets(existing as FieldSet, value as FieldSet) : value;
  }
  return out;
}

/** The field managers a server-side apply's 409 names ("conflict with \"kubectl\" using apps/v1: …"). */
export function conflictingManagers(message: string): string[] {
  return [...new Set([...message.matchAll(/conflict with "([^"]+)"/g)].map((m) => m[1]!))];
}
