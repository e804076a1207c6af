import { parseAllDocuments, type Document } from 'yaml';
import { AppError } from '../../shared/errors';
import type { FieldEdit } from '../../shared/resources/workspace';

/**
 * Applies field edits to multi-document YAML through the yaml Document API, so comments and key
 * order survive. Only the edited documents are re-printed; every other document keeps its exact
 * bytes.
 */
export function editResourceText(text: string, edits: readonly FieldEdit[]): string {
  const docs = parseDocuments(text);
  const replacements = new Map<number, string>();
  for (const edit of edits) {
    const doc = docs[edit.document];
    if (!doc) throw new AppError('InvalidInput', `There is no document ${edit.document} (the file has ${docs.length}).`);
    if (doc.errors.length > 0) throw new AppError('InvalidInput', `Document ${edit.document} has YAML errors (${doc.errors[0]!.message}); fix them before editing fields.`);
    if (edit.remove) doc.deleteIn(edit.path);
    else doc.setIn(edit.path, edit.value);
    replacements.set(edit.document, '');
  }
  const spans = documentSpans(text, docs);
  for (const index of replacements.keys()) replacements.set(index, printDocument(docs[index]!, text.slice(...spans[index]!), index > 0));
  return spliceDocuments(text, replacements, []);
}

/** Where each document's text is, its leading comments and `---` included; together they cover the text. */
export function documentSpans(text: string, docs: readonly Document.Parsed[]): Array<[number, number]> {
  let start = 0;
  return docs.map((doc, index) => {
    const end = index === docs.length - 1 ? text.length : doc.range[2];
    const span: [number, number] = [start, end];
    start = end;
    return span;
  });
}

export function parseDocuments(text: string): Document.Parsed[] {
  const docs = parseAllDocuments(text);
  return Array.isArray(docs) ? docs : [];
}

/**
 * Prints a document in the style its own source shows (list indentation, spaces inside `{ }`), never
 * folding long strings. `separated` makes it start with `---`, as every document after the first must.
 */
export function printDocument(doc: Document.Parsed, source: string, separated: boolean): string {
  if (separated) doc.directives.docStart = true;
  return doc.toString({
    lineWidth: 0,
    indentSeq: !/^( *)[^\s#-][^\n]*:[ \t]*\n\1- /m.test(source),
    flowCollectionPadding: !/[{[][^\s}\]]/.test(source),
  });
}

/** Replaces whole documents of `text` by index and appends new ones; untouched documents keep their bytes. */
export function spliceDocuments(text: string, replacements: ReadonlyMap<number, string>, appended: readonly string[]): string {
  let result = '';
  documentSpans(text, parseDocuments(text)).forEach(([start, end], index) => {
    result += replacements.get(index) ?? text.slice(start, end);
  });
  for (const doc of appended) result += `${result === '' || result.endsWith('\n') ? '' : '\n'}${doc}`;
  return result;
}
