import type { z } from 'zod';
import { KubeName, LANGOP_API_VERSION, LanguageAgentSpec, LanguageToolSpec } from '../../../shared/kube';
import type { ResourceMetadata } from '../../../shared/resources/meta';
import { readObject, type RawObject } from './fieldReaders';
import { normalizeMetadata } from './normalizeMetadata';
import type { ResourceIssues } from './ResourceIssues';

export interface LanguageOperatorObject {
  apiVersion: typeof LANGOP_API_VERSION;
  kind: 'LanguageTool' | 'LanguageAgent';
  metadata: ResourceMetadata;
  spec: LanguageToolSpec | LanguageAgentSpec;
}

/**
 * LanguageTool and LanguageAgent (Language Operator) with the zod schemas the Kubernetes reconciler uses and
 * the defaults the CRDs declare (type mcp, port 8080, deploymentMode service, tools[].enabled true).
 */
export function normalizeLanguageOperator(kind: LanguageOperatorObject['kind'], raw: RawObject, issues: ResourceIssues): LanguageOperatorObject {
  const metadata = normalizeMetadata(raw.metadata, issues, { name: KubeName });
  const schema: z.ZodType<LanguageToolSpec | LanguageAgentSpec> = kind === 'LanguageTool' ? LanguageToolSpec : LanguageAgentSpec;
  const spec = readObject(raw.spec, ['spec'], issues);
  if (kind === 'LanguageTool' && !spec && !issues.list.some((issue) => issue.path[0] === 'spec')) issues.error(['spec'], 'is required (it holds the image)');
  const parsed = schema.safeParse(spec ?? {});
  if (!parsed.success) {
    for (const issue of parsed.error.issues) issues.error(['spec', ...issue.path.map((part) => (typeof part === 'number' ? part : String(part)))], zodMessage(issue));
  }
  return { apiVersion: LANGOP_API_VERSION, kind, metadata, spec: parsed.success ? parsed.data : ({} as LanguageToolSpec) };
}

export function zodMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
  return issue.message;
}
