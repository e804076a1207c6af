import { AppError } from '../../shared/errors';
import { formatIssue, type ResourceIssue } from './kinds/ResourceIssues';
import { normalizeResource, type ResourceContext } from './normalizeResource';

/**
 * The object as it will be stored, every default of its kind applied ("what will be stored").
 * Pure: the same input gives the same output, nothing is read or written. Throws InvalidInput with
 * every problem by path when the object is invalid.
 */
export function applyDefaults(object: unknown, context: ResourceContext = {}): Record<string, unknown> {
  const result = normalizeResource(object, context);
  if (!result.stored) {
    const errors = result.issues.filter((issue) => issue.severity === 'error');
    throw new AppError('InvalidInput', errors.map(formatIssue).join('; '));
  }
  return result.stored;
}

/** Every problem of one object: errors (it would be rejected) and warnings (e.g. ignored fields). */
export function validateResource(object: unknown, context: ResourceContext = {}): ResourceIssue[] {
  return normalizeResource(object, context).issues;
}
