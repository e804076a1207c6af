import { readFile } from 'node:fs/promises';
import type { Collection } from '../../shared/collections';
import { AppError } from '../../shared/errors';
import { parseCollection } from './collectionYaml';

/** A collection from any file (YAML or JSON), e.g. one checked into a repository for CI. */
export async function loadCollectionFile(path: string): Promise<Collection> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new AppError('NotFound', `Cannot read the collection file ${path}: ${(error as Error).message}`);
  }
  return parseCollection(text, path).collection;
}
