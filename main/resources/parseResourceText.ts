import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document } from 'yaml';
import type { Diagnostic } from '../../shared/resources/diagnostics';
import type { ParsedDocument } from '../../shared/resources/workspace';
import { formatIssuePath, type IssuePath, type ResourceIssue } from './kinds/ResourceIssues';
import { normalizeResource, type ResourceContext, type ResourceIdentity } from './normalizeResource';

/** A parsed document plus what the workspace and the reconciler need beyond the contract view. */
export interface LoadedDocument extends ParsedDocument {
  identity?: ResourceIdentity;
  /** The object with defaults, when valid. */
  stored?: Record<string, unknown>;
  /** The document had YAML errors: what it means cannot be known. */
  syntaxError: boolean;
  /** Where the object's name is written, for diagnostics about the object as a whole (duplicates). */
  nameAt?: Pick<Diagnostic, 'line' | 'column' | 'endLine' | 'endColumn'>;
}

/** Documents nested deeper than this many aliases are refused (billion-laughs). */
const MAX_ALIAS_COUNT = 100;

/**
 * Parses multi-document YAML (or JSON) and validates every document with its kind's rules. Each
 * diagnostic carries the 1-based line and column of the offending key or value. Empty documents
 * (a trailing `---`, comments only) are skipped but keep their index, so indexes match the file.
 */
export function parseResourceText(text: string, context: ResourceContext = {}): LoadedDocument[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [];
  const position = (offset: number) => lineCounter.linePos(Math.min(Math.max(offset, 0), text.length));
  const result: LoadedDocument[] = [];
  list.forEach((doc, index) => {
    const startLine = position(doc.range[0]).line;
    const diagnostics: Diagnostic[] = [];
    const at = (range: readonly [number, number], base: Omit<Diagnostic, 'line' | 'column' | 'endLine' | 'endColumn'>): Diagnostic => {
      const start = position(range[0]);
      const end = position(Math.max(range[1], range[0]));
      return { ...base, line: start.line, column: start.col, endLine: end.line, endColumn: end.col };
    };
    for (const error of doc.errors) diagnostics.push(at(error.pos, { severity: 'error', code: 'syntax', message: error.message, document: index }));
    for (const warning of doc.warnings) diagnostics.push(at(warning.pos, { severity: 'warning', code: 'syntax', message: warning.message, document: index }));
    if (doc.errors.length > 0) {
      result.push({ index, line: startLine, valid: false, diagnostics, syntaxError: true });
      return;
    }
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) return;
    let object: unknown;
    try {
      object = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      diagnostics.push(at([doc.range[0], doc.range[1]], { severity: 'error', code: 'syntax', message: (error as Error).message, document: index }));
      result.push({ index, line: startLine, valid: false, diagnostics, syntaxError: true });
      return;
    }
    const normalized = normalizeResource(object, context);
    for (const issue of normalized.issues) diagnostics.push(at(locate(doc, issue), { severity: issue.severity, code: issue.code, message: issue.message, path: formatIssuePath(issue.path) || undefined, document: index }));
    const identity = normalized.identity;
    const nameRange = identity?.kind === 'ClawDescriptor' || identity?.kind === 'ClawPod' || identity?.kind === 'EvalSuite' ? firstLine([doc.range[0], doc.range[1]]) : locate(doc, { path: ['metadata', 'name'], message: '', severity: 'error', code: 'invalid' });
    const { line, column, endLine, endColumn } = at(nameRange, { severity: 'error', code: 'invalid', message: '' });
    result.push({
      index,
      line: startLine,
      ...(identity?.apiVersion ? { apiVersion: identity.apiVersion } : {}),
      ...(identity ? { kind: identity.kind, name: identity.name } : {}),
      ...(identity?.namespace ? { namespace: identity.namespace } : {}),
      object,
      valid: !diagnostics.some((d) => d.severity === 'error'),
      diagnostics,
      ...(identity ? { identity } : {}),
      ...(normalized.stored ? { stored: normalized.stored } : {}),
      syntaxError: false,
      nameAt: { line, column, endLine, endColumn },
    });
  });
  return result;
}

type Range = readonly [number, number];

/**
 * Where an issue points: the value at its path, or for a field that is missing the key of the
 * nearest mapping that exists (e.g. `spec:` for a missing spec.command). Unknown fields point at
 * their key.
 */
function locate(doc: Document.Parsed, issue: ResourceIssue): Range {
  let node: unknown = doc.contents;
  let nodeRange: Range = rangeOf(node) ?? [doc.range[0], doc.range[1]];
  // What stands for the current node as a whole: the key it hangs under, or its first line in a list.
  let anchor: Range = firstLine(nodeRange);
  const path: IssuePath = issue.path;
  for (const [depth, segment] of path.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((item) => String(isScalar(item.key) ? item.key.value : item.key) === String(segment));
      if (!pair) return anchor;
      const keyRange = rangeOf(pair.key) ?? anchor;
      if (depth === path.length - 1 && issue.code === 'unknownField') return keyRange;
      node = pair.value;
      const valueRange = rangeOf(node);
      if (!valueRange) return keyRange;
      nodeRange = valueRange;
      anchor = keyRange;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      const itemRange = rangeOf(item);
      if (!itemRange) return anchor;
      node = item;
      nodeRange = itemRange;
      anchor = firstLine(itemRange);
    } else return nodeRange;
  }
  return isMap(node) || isSeq(node) ? anchor : nodeRange;
}

function rangeOf(node: unknown): Range | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range ? [range[0], range[1]] : undefined;
}

function firstLine(range: Range): Range {
  return [range[0], range[0]];
}
