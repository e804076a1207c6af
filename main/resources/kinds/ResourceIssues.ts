import type { DiagnosticCode, DiagnosticSeverity } from '../../../shared/resources/diagnostics';

export type IssuePath = ReadonlyArray<string | number>;

export interface ResourceIssue {
  path: IssuePath;
  message: string;
  severity: DiagnosticSeverity;
  code: DiagnosticCode;
}

/** `spec.runtime.timeout`, `spec.operation_classes[1]`. */
export function formatIssuePath(path: IssuePath): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${part}`)).join('');
}

export function formatIssue(issue: ResourceIssue): string {
  const path = formatIssuePath(issue.path);
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Collects what is wrong with an object while its kind normalizes it, every problem at once. */
export class ResourceIssues {
  readonly list: ResourceIssue[] = [];

  error(path: IssuePath, message: string, code: DiagnosticCode = 'invalid') {
    this.list.push({ path, message, severity: 'error', code });
  }

  warn(path: IssuePath, message: string, code: DiagnosticCode = 'invalid') {
    this.list.push({ path, message, severity: 'warning', code });
  }

  get hasErrors(): boolean {
    return this.list.some((issue) => issue.severity === 'error');
  }

  /** How many errors so far: a reader compares before and after to know whether its field was fine. */
  get errorCount(): number {
    return this.list.filter((issue) => issue.severity === 'error').length;
  }
}
