import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { AppError } from '../../shared/errors';
import { writeFileAtomic } from './atomicWrite';

export interface JsonFileOptions {
  /** What the file is, for the error a bad file raises ("not a valid servers file"); default "file". */
  kind?: string;
  /** Spaces per level in the written JSON (default 2). */
  indent?: number;
  /**
   * What a file that is not JSON or not valid reads as: "throw" (default) fails with InvalidInput
   * naming the file; "empty" reads it as `empty()`, for files that only remember (the next write
   * replaces the damaged one). A file that cannot be read at all still throws.
   */
  whenInvalid?: 'throw' | 'empty';
}

/**
 * One JSON file of the data dir, read through its schema and written atomically (see
 * writeFileAtomic), with writes and read-modify-write updates run one at a time so two saves in one
 * process never lose each other's change or land in the wrong order.
 */
export class JsonFile<Schema extends z.ZodType> {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly schema: Schema,
    private readonly empty: () => z.infer<Schema>,
    private readonly options: JsonFileOptions = {},
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
    try {
      return this.parse(text);
    } catch (error) {
      if (this.options.whenInvalid === 'empty') return this.empty();
      throw error;
    }
  }

  /**
   * Writes `value` as it is now (it is serialized at once, so later changes to the object do not
   * leak into the file), after every earlier write of this file has finished.
   */
  write(value: z.infer<Schema>): Promise<void> {
    const text = this.serialize(value);
    return this.serialized(async () => {
      await writeFileAtomic(this.path, text);
    });
  }

  /** Reads, changes and writes back, after every earlier write of this file has finished. */
  update<T>(change: (current: z.infer<Schema>) => Promise<{ next: z.infer<Schema>; result: T }> | { next: z.infer<Schema>; result: T }): Promise<T> {
    return this.serialized(async () => {
      const { next, result } = await change(await this.read());
      await writeFileAtomic(this.path, this.serialize(next));
      return result;
    });
  }

  /** Resolves once every write and update asked for so far has finished (whether or not it failed). */
  settled(): Promise<void> {
    return this.queue.then(() => undefined);
  }

  private parse(text: string): z.infer<Schema> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new AppError('InvalidInput', `${this.path} is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    const parsed = this.schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AppError('InvalidInput', `${this.path} is not a valid ${this.options.kind ?? 'file'}: ${issue ? `${issue.path.join('.') || 'top level'}: ${issue.message}` : 'unreadable'}`);
    }
    return parsed.data;
  }

  private serialize(value: z.infer<Schema>): string {
    return `${JSON.stringify(value, null, this.options.indent ?? 2)}\n`;
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
