import { isDeepStrictEqual } from 'node:util';
import { Document, isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import type { z } from 'zod';
import { Collection, type SavedRequest } from '../../shared/collections';
import { AppError } from '../../shared/errors';

const STRINGIFY = { lineWidth: 0, flowCollectionPadding: false } as const;
const HEADER = ' Tooldeck collection: saved calls with assertions. Run it with `tooldeck run <file or name>`.\n Secrets are referenced as {{secret:NAME}} (secret store key collections:NAME), never written here.';

export interface ParsedCollection {
  collection: Collection;
  doc: Document;
}

const MAX_YAML_ERRORS = 5;

/** Parses YAML (or JSON, which is YAML) into a valid collection; InvalidInput names the line of each problem. */
export function parseCollection(text: string, source = 'collection'): ParsedCollection {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true });
  if (doc.errors.length) {
    // A file of garbage has an error on every line: the first few say what is wrong.
    const more = doc.errors.length > MAX_YAML_ERRORS ? `; and ${doc.errors.length - MAX_YAML_ERRORS} more` : '';
    throw new AppError('InvalidInput', `${source}: ${doc.errors.slice(0, MAX_YAML_ERRORS).map((e) => e.message).join('; ')}${more}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // An alias to no anchor, or more alias expansions than allowed (a billion-laughs file).
    throw new AppError('InvalidInput', `${source}: ${(error as Error).message}`);
  }
  const parsed = Collection.safeParse(value);
  if (!parsed.success) throw new AppError('InvalidInput', `${source} is not a valid collection:\n${describeIssues(parsed.error.issues, doc, lineCounter)}`);
  return { collection: parsed.data, doc };
}

function describeIssues(issues: z.core.$ZodIssue[], doc: Document, lines: LineCounter): string {
  return issues
    .map((issue) => {
      const line = lineOf(doc, lines, issue.path);
      return `  ${line ? `line ${line}: ` : ''}${formatPath(issue.path) || '(top)'}: ${issue.message}`;
    })
    .join('\n');
}

function lineOf(doc: Document, lines: LineCounter, path: PropertyKey[]): number | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth) as unknown[], true) as YamlNode | undefined;
    const offset = node?.range?.[0];
    if (offset !== undefined) return lines.linePos(offset).line;
  }
  return undefined;
}

export function formatPath(path: PropertyKey[]): string {
  return path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), '');
}

/** The collection as it is written: defaults that say nothing (no captures, no variables) left out. */
export function collectionToPlain(collection: Collection): Record<string, unknown> {
  return dropUndefined({
    name: collection.name,
    description: collection.description,
    variables: Object.keys(collection.variables).length ? collection.variables : undefined,
    requests: collection.requests.map(requestToPlain),
  });
}

export function requestToPlain(request: SavedRequest): Record<string, unknown> {
  return dropUndefined({
    name: request.name,
    description: request.description,
    target: request.target,
    tool: request.tool,
    arguments: request.arguments,
    timeoutMs: request.timeoutMs,
    maxTotalTimeoutMs: request.maxTotalTimeoutMs,
    confirmed: request.confirmed,
    assertions: request.assertions.length ? request.assertions.map((a) => dropUndefined({ ...a })) : undefined,
    capture: Object.keys(request.capture).length ? request.capture : undefined,
  });
}

/**
 * YAML for a collection. Given the file's current text, edits that document in place — changed
 * values replaced, removed keys deleted, requests matched by name — so comments and layout around
 * everything that did not change survive the save.
 */
export function renderCollection(collection: Collection, previousText?: string): string {
  if (previousText !== undefined) {
    const doc = parseDocument(previousText);
    if (!doc.errors.length && isMap(doc.contents)) {
      const before = Collection.safeParse(doc.toJS({ maxAliasCount: 100 }));
      if (before.success && sameCollection(before.data, collection)) return previousText;
      doc.contents = mergeNode(doc, doc.contents, collectionToPlain(collection)) as typeof doc.contents;
      return doc.toString(STRINGIFY);
    }
  }
  const doc = new Document(collectionToPlain(collection));
  doc.commentBefore = HEADER;
  return doc.toString(STRINGIFY);
}

function mergeNode(doc: Document, node: unknown, value: unknown): unknown {
  if (isMap(node) && isPlainObject(value)) {
    for (const pair of [...node.items]) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      if (typeof key !== 'string' || Object.hasOwn(value, key)) continue;
      // An empty list or map is what a missing key means; keep the author's explicit `capture: {}`.
      if (isEmptyCollectionNode(pair.value)) continue;
      node.delete(key);
    }
    for (const [key, inner] of Object.entries(value)) {
      const existing = node.get(key, true);
      node.set(key, existing === undefined ? doc.createNode(inner) : mergeNode(doc, existing, inner));
    }
    return node;
  }
  if (isSeq(node) && Array.isArray(value)) {
    const byName = namedItems(node.items, value);
    // A list whose items are set apart by blank lines (requests) gets its new items set apart too.
    const spaced = node.items.slice(1).some((item) => (item as YamlNode).spaceBefore);
    node.items = value.map((inner, i) => {
      const existing = byName ? byName.get((inner as { name: string }).name) : node.items[i];
      if (existing !== undefined) return mergeNode(doc, existing, inner);
      const created = doc.createNode(inner);
      if (spaced && i > 0) created.spaceBefore = true;
      return created;
    }) as typeof node.items;
    return node;
  }
  if (isScalar(node) && (value === null || typeof value !== 'object')) {
    if (node.value !== value) node.value = value;
    return node;
  }
  if (isAlias(node) && isDeepStrictEqual(node.toJS(doc), value)) return node;
  const created = doc.createNode(value);
  if (node && typeof node === 'object' && 'comment' in node) {
    const old = node as YamlNode;
    created.comment = old.comment;
    created.commentBefore = old.commentBefore;
    created.spaceBefore = old.spaceBefore;
  }
  return created;
}

/** Requests are matched by name, so reordering or inserting one keeps each request's comments. */
function namedItems(items: unknown[], values: unknown[]): Map<string, unknown> | undefined {
  const named = (v: unknown) => isPlainObject(v) && typeof v.name === 'string';
  if (!values.every(named)) return undefined;
  const byName = new Map<string, unknown>();
  for (const item of items) {
    if (!isMap(item)) return undefined;
    const name = item.get('name');
    if (typeof name !== 'string') return undefined;
    byName.set(name, item);
  }
  return byName;
}

function sameCollection(a: Collection, b: Collection): boolean {
  return JSON.stringify(collectionToPlain(a)) === JSON.stringify(collectionToPlain(b));
}

function isEmptyCollectionNode(node: unknown): boolean {
  return (isMap(node) || isSeq(node)) && node.items.length === 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

function dropUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
