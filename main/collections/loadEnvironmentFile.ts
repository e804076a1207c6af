import { parse } from 'yaml';
import { VariableName } from '../../shared/collections';
import { AppError } from '../../shared/errors';
import { INPUT_LIMITS } from '../../shared/inputLimits';
import { readBoundedText } from '../platform/readBounded';

/**
 * An environment file: a flat mapping of variable names to values, in YAML or JSON (JSON is YAML).
 * Its values override the collection's variables, so one collection runs against dev, staging, CI.
 */
export async function loadEnvironmentFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readBoundedText(path, INPUT_LIMITS.environmentFile);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('InvalidInput', `Cannot read the environment file ${path}: ${(error as Error).message}`);
  }
  return parseEnvironment(text, path);
}

export function parseEnvironment(text: string, source = 'environment'): Record<string, unknown> {
  let value: unknown;
  try {
    // logLevel error: a warning (an unknown tag) would otherwise reach stderr as a process warning quoting the file.
    value = parse(text, { maxAliasCount: 100, logLevel: 'error' }) ?? {};
  } catch (error) {
    throw new AppError('InvalidInput', `${source}: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || Array.isArray(value) || value === null) throw new AppError('InvalidInput', `${source} must be a mapping of variable names to values`);
  const bad = Object.keys(value).filter((key) => !VariableName.safeParse(key).success);
  if (bad.length) throw new AppError('InvalidInput', `${source}: not variable names: ${bad.slice(0, 10).map((key) => JSON.stringify(key.slice(0, 100))).join(', ')}${bad.length > 10 ? ` and ${bad.length - 10} more` : ''}`);
  return value as Record<string, unknown>;
}
