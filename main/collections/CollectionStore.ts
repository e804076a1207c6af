import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { Collection, CollectionName, SavedRequest, type CollectionFormat, type CollectionInput, type CollectionListItem, type SavedRequestInput } from '../../shared/collections';
import { AppError } from '../../shared/errors';
import { INPUT_LIMITS } from '../../shared/inputLimits';
import { readBoundedText, tooLargeError } from '../platform/readBounded';
import { writeFileAtomic } from '../platform/atomicWrite';
import type { SecretStore } from '../platform/SecretStore';
import { collectionToPlain, formatPath, parseCollection, renderCollection } from './collectionYaml';
import { moveLiteralSecrets } from './moveLiteralSecrets';

export const COLLECTIONS_FOLDER = join('workspace', 'collections');
const EXTENSION = '.yaml';

export interface SavedCollection {
  collection: Collection;
  /** The file as it is on disk, comments and all. */
  text: string;
  /** Secrets referenced in place of masked values (saved from history) that are not set yet. */
  unsetSecrets?: string[];
}

/**
 * Collections as YAML files in `<dataDir>/workspace/collections/<name>.yaml`: commented, diffable
 * and reviewable in git. Saving edits the existing document, so comments survive; the file name is
 * the collection's name. Literal secrets never reach a file (see moveLiteralSecrets).
 */
export class CollectionStore {
  readonly dir: string;

  constructor(
    dataDir: string,
    private readonly secretStore: SecretStore,
  ) {
    this.dir = join(dataDir, COLLECTIONS_FOLDER);
  }

  async list(): Promise<CollectionListItem[]> {
    let files: string[];
    try {
      files = (await readdir(this.dir)).filter((f) => f.endsWith(EXTENSION)).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const items: CollectionListItem[] = [];
    for (const file of files) {
      const name = file.slice(0, -EXTENSION.length);
      if (!CollectionName.safeParse(name).success) continue;
      try {
        const { collection } = parseCollection(await readCollectionText(join(this.dir, file)), file);
        items.push({ name, description: collection.description, requestCount: collection.requests.length });
      } catch (error) {
        items.push({ name, requestCount: 0, problem: (error as Error).message });
      }
    }
    return items;
  }

  async read(name: string): Promise<SavedCollection> {
    const text = await this.readText(name);
    const { collection } = parseCollection(text, `${name}${EXTENSION}`);
    return { collection: { ...collection, name }, text };
  }

  async exists(name: string): Promise<boolean> {
    return (await this.readTextIfAny(name)) !== undefined;
  }

  /** Creates or updates `<name>.yaml`; with `previousName` the collection is renamed (the old file goes). */
  async save(input: CollectionInput, options: { previousName?: string } = {}): Promise<SavedCollection> {
    const collection = parseInput(Collection, input);
    const { previousName } = options;
    if (previousName !== undefined && previousName !== collection.name) {
      await this.checkRename(previousName, collection.name);
      const saved = await this.write(collection, await this.readText(previousName));
      await this.remove(previousName);
      return saved;
    }
    return this.write(collection, await this.readTextIfAny(collection.name));
  }

  /** Saves YAML as written in an editor: validated, literal secrets moved out, otherwise kept as is. */
  async saveText(text: string, options: { previousName?: string } = {}): Promise<SavedCollection> {
    const { collection } = parseCollection(text);
    const { previousName } = options;
    if (previousName === undefined || previousName === collection.name) return this.write(collection, text);
    await this.checkRename(previousName, collection.name);
    const saved = await this.write(collection, text);
    await this.remove(previousName);
    return saved;
  }

  async remove(name: string): Promise<void> {
    if (!(await this.exists(name))) throw new AppError('NotFound', `No collection named "${name}"`);
    await rm(this.fileOf(name));
  }

  /** Adds a request, or replaces the one with the same name; creates the collection if needed. */
  async saveRequest(name: string, input: SavedRequestInput, options: { description?: string } = {}): Promise<SavedCollection> {
    const request = parseInput(SavedRequest, input, 'request');
    const existing = await this.readTextIfAny(name);
    const collection: Collection = existing === undefined ? Collection.parse({ name, description: options.description, requests: [] }) : (await this.read(name)).collection;
    const at = collection.requests.findIndex((r) => r.name === request.name);
    const requests = at < 0 ? [...collection.requests, request] : collection.requests.map((r, i) => (i === at ? request : r));
    return this.write({ ...collection, requests }, existing);
  }

  /** JSON or YAML (the format is sniffed); refuses to overwrite an existing collection unless `replace`. */
  async import(text: string, options: { replace?: boolean; name?: string } = {}): Promise<SavedCollection> {
    const parsed = parseCollection(text, 'the imported collection');
    const collection = options.name ? parseInput(Collection, { ...parsed.collection, name: options.name }) : parsed.collection;
    const existing = await this.readTextIfAny(collection.name);
    if (existing !== undefined && !options.replace) throw new AppError('AlreadyExists', `A collection named "${collection.name}" already exists; import with replace to overwrite it`);
    const isJson = text.trimStart().startsWith('{');
    return this.write(collection, isJson ? existing : text);
  }

  /** YAML exports the file as it is (comments included); JSON exports the collection's data. */
  async export(name: string, format: CollectionFormat): Promise<string> {
    const { collection, text } = await this.read(name);
    return format === 'yaml' ? text : `${JSON.stringify(collectionToPlain(collection), null, 2)}\n`;
  }

  private async write(input: Collection, previousText: string | undefined): Promise<SavedCollection> {
    const { collection, unset } = await moveLiteralSecrets(input, this.secretStore);
    const text = renderCollection(collection, previousText);
    // What is saved must load again.
    const bytes = Buffer.byteLength(text);
    if (bytes > INPUT_LIMITS.collectionFile.maxBytes) throw tooLargeError(`The collection "${collection.name}"`, INPUT_LIMITS.collectionFile, bytes);
    await writeFileAtomic(this.fileOf(collection.name), text, 0o644);
    return { collection, text, ...(unset.length ? { unsetSecrets: unset } : {}) };
  }

  private async checkRename(from: string, to: string): Promise<void> {
    if (!(await this.exists(from))) throw new AppError('NotFound', `No collection named "${from}"`);
    if (await this.exists(to)) throw new AppError('AlreadyExists', `A collection named "${to}" already exists`);
  }

  private fileOf(name: string): string {
    const checked = CollectionName.safeParse(name);
    if (!checked.success) throw new AppError('InvalidInput', `"${name}" is not a collection name: ${checked.error.issues[0]?.message}`);
    return join(this.dir, `${name}${EXTENSION}`);
  }

  private async readText(name: string): Promise<string> {
    const text = await this.readTextIfAny(name);
    if (text === undefined) throw new AppError('NotFound', `No collection named "${name}" in ${this.dir}`);
    return text;
  }

  private async readTextIfAny(name: string): Promise<string | undefined> {
    try {
      return await readCollectionText(this.fileOf(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
}

/** A file of the collections folder: a FIFO or a device named `x.yaml` is refused, not waited on. */
function readCollectionText(path: string): Promise<string> {
  return readBoundedText(path, { ...INPUT_LIMITS.collectionFile, regularOnly: true });
}

function parseInput<T extends z.ZodType>(schema: T, input: unknown, what = 'collection'): z.infer<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new AppError('InvalidInput', `Not a valid ${what}: ${parsed.error.issues.map((i) => `${formatPath(i.path) || '(top)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
