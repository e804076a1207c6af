import type { Collection } from '../../shared/collections';
import { AppError } from '../../shared/errors';
import { INPUT_LIMITS } from '../../shared/inputLimits';
import { readBoundedText } from '../platform/readBounded';
import { parseCollection } from './collectionYaml';

/** A collection from any file (YAML or JSON), e.g. one checked into a repository for CI; a pipe or FIFO too. */
export async function loadCollectionFile(path: string): Promise<Collection> {
  let text: string;
  try {
    text = await readBoundedText(path, INPUT_LIMITS.collectionFile);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('NotFound', `Cannot read the collection file ${path}: ${(error as Error).message}`);
  }
  return parseCollection(text, path).collection;
}
