import { EvalSuite } from '../../../shared/evals';
import type { RawObject } from './fieldReaders';
import type { ResourceIssues } from './ResourceIssues';

/** An eval suite (`evals/*.yml`) by its schema: every problem at its path, as the editor shows it. */
export function normalizeEvalSuite(raw: RawObject, issues: ResourceIssues): EvalSuite | undefined {
  const parsed = EvalSuite.safeParse(raw);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const path = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) issues.error([...path, key], 'is not a field of an eval suite here', 'unknownField');
    else issues.error(path, issue.message);
  }
  return undefined;
}
