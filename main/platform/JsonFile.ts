import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { AppError } from '../../shared/errors';
import { writeFileAtomic } from './atomicWrite';

/**
 * One JSON file of the data dir, read through its schema and written atomically (see
 * writeFileAtomic), with read-modify-write updates run one at a time so two saves in one process
 * never lose each other's change.
 */
export class JsonFile<Schema extends z.ZodType> {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly schema: Schema,
    private readonly empty: () => z.infer<Schema>,
  ) {}

  /** The file's content; `empty()` when there is no file; InvalidInput naming the file when it is not valid. */
  async read(): Promise<z.infer<Schema>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.empty();
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new AppError('InvalidInput', `${this.path} is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    const parsed = this.schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AppError('InvalidInput', `${this.path} is not a valid file: ${issue ? `${issue.path.join('.') || 'top level'}: ${issue.message}` : 'unreadable'}`);
    }
    return parsed.data;
  }

  write(value: z.infer<Schema>): Promise<void> {
    return this.serialized(() => writeFileAtomic(this.path, `${JSON.stringify(value, null, 2)}\n`));
  }

  /** Reads, changes and writes back, after every earlier write of this file has finished. */
  update<T>(change: (current: z.infer<Schema>) => Promise<{ next: z.infer<Schema>; result: T }> | { next: z.infer<Schema>; result: T }): Promise<T> {
    return this.serialized(async () => {
      const { next, result } = await change(await this.read());
      await writeFileAtomic(this.path, `${JSON.stringify(next, null, 2)}\n`);
      return result;
    });
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
