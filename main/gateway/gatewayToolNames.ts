import { createHash } from 'node:crypto';
import type { ToolEntry } from '../../shared/registry';

/** What MCP allows in a tool name (SEP-986), as Clawdapus's cllama also requires of managed tools. */
const VALID = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The name each granted entry is offered under: `<source>.<tool>` (the name Clawdapus's tools.json
 * gives it), made valid for MCP the way cllama does (other characters become `_`), and told apart
 * when two entries would share one (two kinds with the same source name, or a name changed by
 * the rewriting): the later one gets `_` and the first 8 hex digits of the SHA-1 of its registry
 * name. The map goes both ways: offered name → entry, and entry → offered name.
 */
export function gatewayToolNames(entries: readonly ToolEntry[]): Map<string, ToolEntry> {
  const byName = new Map<string, ToolEntry>();
  for (const entry of entries) {
    const plain = `${entry.source.name}.${entry.toolName}`;
    let name = VALID.test(plain) ? plain : plain.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^_+|_+$/g, '').slice(0, 119) || 'tool';
    if (byName.has(name)) name = `${name.slice(0, 119)}_${createHash('sha1').update(entry.name).digest('hex').slice(0, 8)}`;
    byName.set(name, entry);
  }
  return byName;
}
