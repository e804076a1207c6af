import type { DefinitionDiff, SchemaChange, TextDiffPart, ToolReview } from '../../../shared/lock';
import { terminalName } from '../terminalText';

/**
 * Names, versions and descriptions come from tooldeck.lock and from servers: every hidden character
 * spelled out and every control character escaped, never cut (a reviewer reads all of it).
 */
const shown = (text: string) => terminalName(text, Number.POSITIVE_INFINITY);

/** One held tool as `lock status` lists it. */
export function reviewLine(tool: ToolReview): string {
  const detail =
    tool.state === 'renamed'
      ? `from ${shown(tool.previousName ?? '')}`
      : tool.state === 'changed'
        ? tool.changes.length
          ? tool.changes.map((field) => (field === 'version' ? `version ${shown(String(tool.lockedVersion))} → ${shown(String(tool.version))}` : field)).join(', ')
          : 'definition hash differs'
        : '';
  return `${tool.state.padEnd(9)} ${shown(tool.tool)}${detail ? `  (${detail})` : ''}`;
}

/**
 * A definition diff for a terminal: per tool what changed, the schema changes by JSON Pointer, and
 * a word diff of the description in git's word-diff style ([-removed-]{+added+}), every invisible
 * or look-alike character spelled out.
 */
export function formatDiff(diff: DefinitionDiff): string {
  const { counts } = diff;
  const lines = [`${shown(diff.source)}: ${diff.from} → ${diff.to}: ${counts.changed} changed, ${counts.renamed} renamed, ${counts.added} added, ${counts.removed} removed, ${counts.unchanged} unchanged`];
  for (const tool of diff.tools) {
    if (tool.change === 'unchanged') continue;
    const name = shown(tool.name);
    lines.push('');
    lines.push(tool.change === 'renamed' ? `renamed  ${shown(tool.previousName ?? '')} → ${name}` : `${tool.change.padEnd(8)} ${name}${tool.fields.length ? `  (${tool.fields.join(', ')})` : ''}`);
    if (tool.beforeUnknown) lines.push('  the approved definition is not in this machine’s history; only its hash is known');
    if (tool.version) lines.push(`  version: ${shown(tool.version.before ?? '—')} → ${shown(tool.version.after ?? '—')}`);
    if (tool.title) lines.push(`  title: ${wordDiff(tool.title)}`);
    if (tool.description) lines.push(`  description: ${wordDiff(tool.description)}`);
    for (const [label, changes] of [['inputSchema', tool.inputSchema], ['outputSchema', tool.outputSchema]] as const) {
      for (const change of changes) lines.push(`  ${label}${shown(change.path || '/')}: ${schemaChange(change)}`);
    }
    if (tool.change === 'added' && tool.after?.description) lines.push(`  description: ${shown(tool.after.description)}`);
  }
  return `${lines.join('\n')}\n`;
}

function wordDiff(parts: readonly TextDiffPart[]): string {
  return parts.map((part) => (part.op === '=' ? shown(part.text) : part.op === '+' ? `{+${shown(part.text)}+}` : `[-${shown(part.text)}-]`)).join('');
}

function schemaChange(change: SchemaChange): string {
  const show = (value: unknown) => shown(JSON.stringify(value) ?? 'undefined');
  if (change.kind === 'added') return `added ${show(change.after)}`;
  if (change.kind === 'removed') return `removed ${show(change.before)}`;
  return `${show(change.before)} → ${show(change.after)}`;
}
