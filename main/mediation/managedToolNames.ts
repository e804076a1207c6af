import { createHash } from 'node:crypto';
import type { ToolEntry } from '../../shared/registry';

const PLAIN = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The names a model sees for an agent's managed tools, by Clawdapus cllama's rule: `<service>.<tool>`
 * passes when it is `[A-Za-z0-9_-]{1,128}`; otherwise each other character becomes `_` and leading
 * and trailing `_` go; a name already taken gets `_` and the first 8 hex digits of the SHA-1 of the
 * full name. So `everything.get-sum` is shown as `everything_get-sum`.
 */
export function managedToolNames(entries: readonly ToolEntry[]): Map<string, ToolEntry> {
  const byName = new Map<string, ToolEntry>();
  for (const entry of entries) {
    const full = `${entry.source.name}.${entry.toolName}`;
    let name = PLAIN.test(full) ? full : full.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^_+|_+$/g, '').slice(0, 119) || 'tool';
    if (byName.has(name)) name = `${name.slice(0, 119)}_${createHash('sha1').update(full).digest('hex').slice(0, 8)}`;
    byName.set(name, entry);
  }
  return byName;
}
