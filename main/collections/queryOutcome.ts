import { JSONPath } from 'jsonpath-plus';
import { AppError } from '../../shared/errors';
import type { InvocationOutcome } from '../../shared/registry';

export interface PathMatch {
  found: boolean;
  value?: unknown;
}

/** `text` in a path assertion or capture: the text content blocks joined by newlines. */
export const TEXT_PATH = 'text';

/**
 * What paths are evaluated on: the tool result (`content`, `structuredContent`, `isError`) and, when
 * the pipeline failed the call, `error` ({code, message, retryable}).
 */
export function outcomeDocument(outcome: InvocationOutcome): Record<string, unknown> {
  const doc: Record<string, unknown> = { ...(outcome.result ?? { content: [] }) };
  if (outcome.error) doc.error = outcome.error;
  return doc;
}

export function outcomeText(outcome: InvocationOutcome): string | undefined {
  const texts = (outcome.result?.content ?? []).flatMap((block) => (block.type === 'text' ? [block.text] : []));
  return texts.length ? texts.join('\n') : undefined;
}

/**
 * JSONPath through jsonpath-plus, with script evaluation off: collections are shared files, and
 * `$`, `.key`, `['key']`, `[n]`, `[*]`, `..` and slices are what checks need. A definite path (one
 * location) yields that value; a wildcard, recursive or union path yields the array of matches.
 */
export function queryPath(root: unknown, path: string): PathMatch {
  if (!path.startsWith('$')) throw new AppError('InvalidInput', `"${path}" is not a JSONPath (it starts with $)`);
  let matches: unknown[];
  try {
    matches = JSONPath({ path, json: root as object, wrap: true, eval: false }) as unknown[];
  } catch (error) {
    throw new AppError('InvalidInput', `"${path}" is not a usable JSONPath: ${(error as Error).message}`);
  }
  if (isDefinite(path)) return matches.length ? { found: true, value: matches[0] } : { found: false };
  return { found: matches.length > 0, value: matches };
}

export function queryOutcome(outcome: InvocationOutcome, path: string): PathMatch {
  if (path === TEXT_PATH) {
    const text = outcomeText(outcome);
    return text === undefined ? { found: false } : { found: true, value: text };
  }
  return queryPath(outcomeDocument(outcome), path);
}

function isDefinite(path: string): boolean {
  return JSONPath.toPathArray(path).every((token) => {
    const part = String(token);
    return part !== '*' && part !== '..' && part !== '~' && part !== '^' && !part.includes(',') && !/^-?\d*:-?\d*(:-?\d+)?$/.test(part) && !part.startsWith('?(') && !part.startsWith('(');
  });
}
