import { readFile, stat } from 'node:fs/promises';
import { isMap, isScalar, parseDocument, type Document, type YAMLMap } from 'yaml';
import { z } from 'zod';
import { DefinitionHash, NewSourcesPolicy } from '../../shared/lock';
import { writeFileAtomic } from '../platform/atomicWrite';

/** What the lock says about one tool. A tool only ever rejected has no approved hash. */
export const LockedTool = z
  .object({
    /** The approved definition. */
    hash: DefinitionHash.optional(),
    /** Its fingerprint without the name, so a rename with the same body is recognised. */
    body: DefinitionHash.optional(),
    /** tools.v1: the version calls carry (the pinned one, else the tool's own). */
    version: z.string().min(1).optional(),
    /** Definitions reviewed and refused: the tool is denied while it has one of these. */
    rejected: z.array(DefinitionHash).optional(),
  })
  .strict()
  .refine((tool) => tool.hash !== undefined || (tool.rejected?.length ?? 0) > 0, 'a tool needs an approved hash or a rejected one');
export type LockedTool = z.infer<typeof LockedTool>;

export const LockedSource = z.object({ tools: z.record(z.string(), LockedTool).default({}) }).strict();
export type LockedSource = z.infer<typeof LockedSource>;

const SOURCE_KEY = /^(mcp|a2a|http|grpc):[^\s]+$/;

export const LockModel = z
  .object({
    version: z.literal(1),
    /** Sources without an entry: their first definitions are approved, or every tool is held. */
    newSources: NewSourcesPolicy.default('trust-on-first-use'),
    sources: z
      .record(z.string().regex(SOURCE_KEY, 'source keys look like mcp:<server>, a2a:<agent>, http:<service> or grpc:<source>'), LockedSource)
      .default({}),
  })
  .strict();
export type LockModel = z.infer<typeof LockModel>;

const HEADER = [
  ' tooldeck.lock: the approved definition of every tool, per source (a SHA-256 of its RFC 8785',
  ' canonical JSON: name, title, description, input and output schema, annotations).',
  ' Review changes to this file like code: a changed hash is a changed description or schema.',
  ' `tooldeck lock diff <source>` shows what changed, `tooldeck lock approve` writes it, and',
  ' `tooldeck lock verify` fails a build when a server no longer matches.',
].join('\n');

export interface LoadedLock {
  exists: boolean;
  /** The parsed document (comments kept) to edit; absent when the file is missing or unreadable. */
  doc?: Document;
  model: LockModel;
  /** Why the file cannot be used: the model is then empty and nothing may be written over it. */
  error?: string;
  /** Modification time and size when read, to notice edits by hand. */
  stamp?: string;
}

export function emptyLock(): LockModel {
  return { version: 1, newSources: 'trust-on-first-use', sources: {} };
}

/** Parses lockfile text; errors name the line or the field path. */
export function parseLock(text: string): { doc?: Document; model: LockModel; error?: string } {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    return { model: emptyLock(), error: `not valid YAML: ${first.message.split('\n')[0]}` };
  }
  const value: unknown = doc.toJS() ?? {};
  const parsed = LockModel.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join('.');
    // A bad record key carries the key rule's own message one level down.
    const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    return { model: emptyLock(), error: `${path ? `${path}: ` : ''}${message}` };
  }
  return { doc, model: parsed.data };
}

export async function readLock(path: string): Promise<LoadedLock> {
  let text: string;
  let stamp: string;
  try {
    const info = await stat(path);
    stamp = `${info.mtimeMs}:${info.size}`;
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, model: emptyLock() };
    return { exists: true, model: emptyLock(), error: `cannot be read: ${(error as Error).message}` };
  }
  const parsed = parseLock(text);
  return { exists: true, ...parsed, stamp, ...(parsed.error ? { error: parsed.error } : {}) };
}

/** A new document for a lock that does not exist yet, with the explanatory header. */
export function newLockDocument(model: LockModel = emptyLock()): Document {
  const doc = parseDocument('version: 1\n');
  doc.commentBefore = HEADER;
  doc.set('newSources', model.newSources);
  doc.set('sources', doc.createNode({}));
  return doc;
}

/** Sets (or with `undefined` removes) a tool of a source in the document, keeping every comment. */
export function setLockedTool(doc: Document, source: string, tool: string, locked: LockedTool | undefined): void {
  ensureMap(doc, ['sources']);
  if (locked === undefined) {
    doc.deleteIn(['sources', source, 'tools', tool]);
    return;
  }
  ensureMap(doc, ['sources', source]);
  ensureMap(doc, ['sources', source, 'tools']);
  const clean: Record<string, unknown> = {};
  if (locked.hash) clean.hash = locked.hash;
  if (locked.body) clean.body = locked.body;
  if (locked.version) clean.version = locked.version;
  if (locked.rejected?.length) clean.rejected = locked.rejected;
  const existing = doc.getIn(['sources', source, 'tools', tool]);
  if (isMap(existing)) {
    // Edit in place so a comment a reviewer wrote on the tool stays with it.
    for (const key of ['hash', 'body', 'version', 'rejected']) {
      if (clean[key] === undefined) existing.delete(key);
      else existing.set(key, doc.createNode(clean[key]));
    }
  } else doc.setIn(['sources', source, 'tools', tool], doc.createNode(clean));
  sortKeys(doc.getIn(['sources']));
  sortKeys(doc.getIn(['sources', source, 'tools']));
}

/** Makes sure the source has an entry, even one without tools (a source approved while it lists none). */
export function ensureLockedSource(doc: Document, source: string): void {
  ensureMap(doc, ['sources']);
  ensureMap(doc, ['sources', source]);
  ensureMap(doc, ['sources', source, 'tools']);
  sortKeys(doc.getIn(['sources']));
}

export function removeLockedSource(doc: Document, source: string): void {
  doc.deleteIn(['sources', source]);
}

export function setNewSources(doc: Document, policy: z.infer<typeof NewSourcesPolicy>): void {
  doc.set('newSources', policy);
}

export function lockText(doc: Document): string {
  return doc.toString({ lineWidth: 0 });
}

/** Writes the document, keeping the file's mode when it exists. */
export async function writeLock(path: string, doc: Document): Promise<void> {
  const mode = await stat(path).then((info) => info.mode & 0o777).catch(() => 0o600);
  await writeFileAtomic(path, lockText(doc), mode);
}

function ensureMap(doc: Document, path: string[]) {
  const node = doc.getIn(path, true);
  if (!isMap(node)) doc.setIn(path, doc.createNode({}));
}

function sortKeys(node: unknown) {
  if (!isMap(node)) return;
  const key = (item: YAMLMap['items'][number]) => (isScalar(item.key) ? String(item.key.value) : String(item.key));
  node.items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
