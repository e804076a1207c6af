import { AppError } from '../../shared/errors';
import type { EvalSuite } from '../../shared/evals';
import { parseResourceText } from '../resources/parseResourceText';

/**
 * An eval suite from YAML text, or `InvalidInput` with one sentence that says where:
 * `evals/weather.yml:12:9: cases[0].expect.order: Invalid option…`. The workspace reads
 * `evals/*.yml` with the same rules (the Resources editor shows the same problems).
 */
export function loadEvalSuite(text: string, file: string): EvalSuite {
  const documents = parseResourceText(text, { fileName: file, evalSuite: true });
  if (documents.length === 0) throw new AppError('InvalidInput', `${file} is empty: an eval suite needs name, agent or tools, and cases.`);
  if (documents.length > 1) throw new AppError('InvalidInput', `${file}:${documents[1]!.line}: one eval suite per file (this file has ${documents.length} YAML documents).`);
  const [document] = documents;
  const error = document!.diagnostics.find((diagnostic) => diagnostic.severity === 'error');
  if (error || !document!.stored) {
    const where = error ? `${file}:${error.line}:${error.column}` : file;
    throw new AppError('InvalidInput', `${where}: ${error?.path ? `${error.path}: ` : ''}${error?.message ?? 'not a valid eval suite'}.`.replace(/\.\.$/, '.'));
  }
  return document!.stored as EvalSuite;
}
