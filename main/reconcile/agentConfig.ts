import { Document, isMap, parseDocument } from 'yaml';
import type { AgentToolEntry } from '../../shared/kube';

export interface AgentConfigUpdate {
  /** The new config.yaml text; other keys, their order and comments are kept. */
  text: string;
  /** Tool names this update put under `tools:` (record them to remove them later). */
  managed: string[];
  changed: boolean;
}

/**
 * Sets the endpoints of the agent's tools in its config.yaml (`tools: {<name>: {endpoint, protocol}}`)
 * and removes the entries an earlier update wrote that are no longer wanted. Entries someone else
 * wrote, and every other key, stay as they are.
 */
export function injectToolEndpoints(configYaml: string | undefined, previouslyManaged: readonly string[], entries: Readonly<Record<string, AgentToolEntry>>): AgentConfigUpdate {
  const original = configYaml ?? '';
  const parsed = parseDocument(original);
  if (parsed.errors.length) throw new Error(`config.yaml is not valid YAML: ${parsed.errors[0]!.message}`);
  const doc: Document = parsed.contents === null ? new Document({}) : parsed;
  if (!isMap(doc.contents)) throw new Error('config.yaml must be a mapping at the top level');
  const tools = doc.get('tools');
  if (tools !== undefined && tools !== null && !isMap(tools)) throw new Error('config.yaml has a `tools` key that is not a mapping');

  let modified = false;
  for (const name of previouslyManaged) {
    if (!(name in entries) && doc.hasIn(['tools', name])) {
      doc.deleteIn(['tools', name]);
      modified = true;
    }
  }
  for (const [name, entry] of Object.entries(entries)) {
    const current = doc.getIn(['tools', name]) as { toJSON?: () => unknown } | undefined;
    const currentJson = current && typeof current.toJSON === 'function' ? current.toJSON() : current;
    if (!sameEntry(currentJson, entry)) {
      if (!doc.has('tools') || doc.get('tools') === null) doc.set('tools', doc.createNode({}));
      doc.setIn(['tools', name], doc.createNode({ endpoint: entry.endpoint, protocol: entry.protocol, ...(entry.headers ? { headers: { ...entry.headers } } : {}) }));
      modified = true;
    }
  }
  const managed = Object.keys(entries).sort();
  // An untouched document keeps its exact text: re-serialising could reformat it and cause a write.
  if (!modified) return { text: original, managed, changed: false };
  const after = doc.get('tools');
  if (isMap(after) && after.items.length === 0) doc.delete('tools');
  const text = isMap(doc.contents) && doc.contents.items.length === 0 ? '' : doc.toString();
  return { text, managed, changed: text !== original };
}

function sameEntry(current: unknown, entry: AgentToolEntry): boolean {
  if (!current || typeof current !== 'object') return false;
  const c = current as Record<string, unknown>;
  const wanted = entry.headers ? JSON.stringify(Object.entries(entry.headers).sort()) : undefined;
  const present = c.headers && typeof c.headers === 'object' ? JSON.stringify(Object.entries(c.headers).sort()) : undefined;
  return Object.keys(c).length === (entry.headers ? 3 : 2) && c.endpoint === entry.endpoint && c.protocol === entry.protocol && wanted === present;
}
