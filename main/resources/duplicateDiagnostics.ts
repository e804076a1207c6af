import type { Diagnostic } from '../../shared/resources/diagnostics';
import { describeIdentity, identityKey } from './normalizeResource';
import type { LoadedDocument } from './parseResourceText';

export type IdentityIndex = Map<string, Array<LoadedDocument & { file: string }>>;

export function indexByIdentity(documents: ReadonlyArray<LoadedDocument & { file: string }>): IdentityIndex {
  const index: IdentityIndex = new Map();
  for (const doc of documents) {
    if (!doc.identity?.name) continue;
    const key = identityKey(doc.identity);
    index.set(key, [...(index.get(key) ?? []), doc]);
  }
  return index;
}

export function documentDiagnostics(file: string, doc: LoadedDocument, index: IdentityIndex): Diagnostic[] {
  return [...doc.diagnostics, ...duplicateDiagnostics(doc, file, index)];
}

/** Same kind, namespace and name twice: both are reported, and neither is applied. */
function duplicateDiagnostics(doc: LoadedDocument, file: string, index: IdentityIndex): Diagnostic[] {
  if (!doc.identity?.name || !doc.nameAt) return [];
  return (index.get(identityKey(doc.identity)) ?? [])
    .filter((other) => !(other.file === file && other.index === doc.index))
    .map((other) => ({
      severity: 'error' as const,
      code: 'duplicate' as const,
      path: doc.identity!.kind === 'ClawDescriptor' || doc.identity!.kind === 'ClawPod' || doc.identity!.kind === 'EvalSuite' ? undefined : 'metadata.name',
      message: `${describeIdentity(doc.identity!)} is also defined in ${other.file === file ? 'this file' : other.file} (document ${other.index}, line ${other.nameAt?.line ?? other.line}); names must be unique per kind`,
      document: doc.index,
      ...doc.nameAt!,
    }));
}

