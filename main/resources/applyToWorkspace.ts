import { posix } from 'node:path';
import { AppError } from '../../shared/errors';
import { canonicalJson } from '../registry/canonicalJson';
import { documentSpans, parseDocuments, printDocument, spliceDocuments } from './editResourceText';
import { identityKey, type ResourceIdentity } from './normalizeResource';
import { parseResourceText } from './parseResourceText';
import type { Workspace } from './Workspace';

export type ApplyAction = 'created' | 'configured' | 'unchanged';

export interface ApplyResult {
  identity: ResourceIdentity;
  action: ApplyAction;
  /** The workspace file that holds (or would hold) the object. */
  file: string;
}

/**
 * `apply` into the workspace, the local target's store: an object already defined in some file is
 * replaced in that file (its other documents keep their bytes), a new one is appended to the file
 * named like the source. Invalid text is refused whole. With `dryRun` nothing is written.
 */
export async function applyToWorkspace(workspace: Workspace, sourceName: string, text: string, options: { dryRun?: boolean } = {}): Promise<ApplyResult[]> {
  const targetFile = posix.basename(sourceName.replace(/\\/g, '/'));
  const parsed = parseResourceText(text, { fileName: targetFile });
  const invalid = parsed.find((doc) => !doc.valid || !doc.stored || !doc.identity);
  if (invalid) throw new AppError('InvalidInput', `${sourceName} is not valid (document ${invalid.index}); run tooldeck validate -f ${sourceName}`);
  const sourceDocs = parseDocuments(text);
  const spans = documentSpans(text, sourceDocs);
  const existing = new Map(workspace.documents().flatMap((doc) => (doc.identity?.name ? [[identityKey(doc.identity), doc] as const] : [])));
  const edits = new Map<string, { replacements: Map<number, string>; appended: string[] }>();
  const editsOf = (file: string) => {
    let entry = edits.get(file);
    if (!entry) edits.set(file, (entry = { replacements: new Map(), appended: [] }));
    return entry;
  };
  const results: ApplyResult[] = [];
  for (const doc of parsed) {
    const identity = doc.identity!;
    const current = existing.get(identityKey(identity));
    const printed = (separated: boolean) => printDocument(sourceDocs[doc.index]!, text.slice(...spans[doc.index]!), separated);
    if (!current) {
      const target = editsOf(targetFile);
      const fileExists = workspace.listing().files.some((file) => file.path === targetFile);
      target.appended.push(printed(fileExists || target.appended.length > 0));
      results.push({ identity, action: 'created', file: targetFile });
    } else if (current.stored && canonicalJson(current.stored) === canonicalJson(doc.stored)) {
      results.push({ identity, action: 'unchanged', file: current.file });
    } else {
      editsOf(current.file).replacements.set(current.index, printed(current.index > 0));
      results.push({ identity, action: 'configured', file: current.file });
    }
  }
  const writes = [...edits].map(([file, { replacements, appended }]) => {
    const view = workspace.listing().files.find((entry) => entry.path === file);
    const before = view ? workspace.read(file).text : '';
    if (before === undefined) throw new AppError('InvalidInput', `${file} cannot be read (too large or unreadable); nothing was applied`);
    return { path: file, text: spliceDocuments(before, replacements, appended), expectedVersion: view?.version ?? null };
  });
  if (options.dryRun) return results;
  for (const write of writes) await workspace.save(write);
  return results;
}
