import { z } from 'zod';

export const DiagnosticSeverity = z.enum(['error', 'warning']);
export type DiagnosticSeverity = z.infer<typeof DiagnosticSeverity>;

/**
 * syntax: not YAML; invalid: breaks a rule of its kind; unknownKind: no such apiVersion/kind;
 * unknownField: a field the kind does not have (ignored); duplicate: same kind and name twice in
 * the workspace; tooLarge: over the file size limit; unreadable: the file could not be read.
 */
export const DiagnosticCode = z.enum(['syntax', 'invalid', 'unknownKind', 'unknownField', 'duplicate', 'tooLarge', 'unreadable']);
export type DiagnosticCode = z.infer<typeof DiagnosticCode>;

export const Diagnostic = z.object({
  severity: DiagnosticSeverity,
  code: DiagnosticCode,
  /** Without the path; `formatDiagnostic` puts them together. */
  message: z.string(),
  /** Where in the object, e.g. `spec.runtime.timeout` or `spec.operation_classes[1]`. */
  path: z.string().optional(),
  /** The document of a multi-document file, from 0. */
  document: z.number().int().min(0).optional(),
  /** 1-based, like editors count. */
  line: z.number().int().min(1),
  column: z.number().int().min(1),
  endLine: z.number().int().min(1),
  endColumn: z.number().int().min(1),
});
export type Diagnostic = z.infer<typeof Diagnostic>;

/** `file:line:column: path: message`, the way compilers print, so editors and terminals link it. */
export function formatDiagnostic(diagnostic: Diagnostic, file?: string): string {
  const where = `${file ? `${file}:` : ''}${diagnostic.line}:${diagnostic.column}`;
  const severity = diagnostic.severity === 'warning' ? 'warning: ' : '';
  return `${where}: ${severity}${diagnostic.path ? `${diagnostic.path}: ` : ''}${diagnostic.message}`;
}
