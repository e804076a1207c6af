import type { z } from 'zod';
import type { ResourceMetadata } from '../../../shared/resources/meta';
import { compact, isPlainObject, readObject, readString, shown } from './fieldReaders';
import type { ResourceIssues } from './ResourceIssues';

export interface MetadataRules {
  /** Orloj puts objects without a namespace in `default`; Kubernetes kinds take it from the target. */
  defaultNamespace?: string;
  /** Extra rule for the name, e.g. a DNS label or a server name. */
  name?: z.ZodType<string>;
}

export function normalizeMetadata(raw: unknown, issues: ResourceIssues, rules: MetadataRules = {}): ResourceMetadata {
  const metadata = readObject(raw, ['metadata'], issues);
  if (raw === undefined || raw === null) issues.error(['metadata'], 'is required (it holds the name)');
  const name = readString(metadata?.name, ['metadata', 'name'], issues);
  if (metadata && name === undefined && (metadata.name === undefined || metadata.name === null || metadata.name === '')) {
    issues.error(['metadata', 'name'], 'is required');
  }
  if (name !== undefined && rules.name) {
    const checked = rules.name.safeParse(name);
    if (!checked.success) issues.error(['metadata', 'name'], `${shown(name)}: ${checked.error.issues.map((issue) => issue.message).join('; ')}`);
  }
  const namespace = readString(metadata?.namespace, ['metadata', 'namespace'], issues) ?? rules.defaultNamespace;
  return compact({
    name: name ?? '',
    namespace,
    labels: stringMap(metadata?.labels, ['metadata', 'labels'], issues),
    annotations: stringMap(metadata?.annotations, ['metadata', 'annotations'], issues),
  });
}

function stringMap(value: unknown, path: Array<string | number>, issues: ResourceIssues): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    issues.error(path, 'must be a mapping of strings');
    return undefined;
  }
  const result: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string') result[key] = item;
    else issues.error([...path, key], `must be a string, got ${shown(item)} (quote it)`);
  }
  return result;
}
