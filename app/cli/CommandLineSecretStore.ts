import { readFile } from 'node:fs/promises';
import { AppError } from '../../shared/errors';
import { writeFileAtomic } from '../../main/platform/atomicWrite';
import { FileSecretStore } from '../../main/platform/FileSecretStore';
import type { SecretStore } from '../../main/platform/SecretStore';
import { keychainSealedFile, secretsDir } from '../common/secretFiles';

/**
 * The CLI's (and browser mode's) secrets: the sealed file in the data folder. Secrets the desktop
 * app sealed with the OS keychain cannot be opened outside the app (Electron's safeStorage binds them
 * to the app's own keychain entry), so asking for one fails with a sentence that says so and what to
 * do, instead of connecting without it and failing as "unauthorized".
 */
export class CommandLineSecretStore implements SecretStore {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataDir: string) {}

  async get(key: string) {
    const value = await this.withFile((file) => file.get(key));
    if (value !== undefined) return value;
    if (await this.sealedByApp(key)) {
      throw new AppError(
        'Unauthorized',
        `The secret "${key}" was saved by the Tooldeck desktop app and is sealed with the OS keychain, which only the app can open. Use the app, or save the secret again from the command line (it then moves out of the keychain).`,
        { retryable: false },
      );
    }
    return undefined;
  }

  /** Saving or deleting here also drops the app's keychain copy, so the app and the CLI never hold two values for one key. */
  async set(key: string, value: string) {
    await this.withFile((file) => file.set(key, value));
    await this.dropAppCopy(key);
  }

  async delete(key: string) {
    await this.withFile((file) => file.delete(key));
    await this.dropAppCopy(key);
  }

  keys() {
    return this.withFile((file) => file.keys());
  }

  /** The sealed file read afresh each time (the app may change it while `tooldeck serve` runs); writes one at a time. */
  private withFile<T>(use: (file: FileSecretStore) => Promise<T>): Promise<T> {
    const next = this.queue.then(() => use(new FileSecretStore(secretsDir(this.dataDir))));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async sealedByApp(key: string): Promise<boolean> {
    return Object.hasOwn(await this.appSealed(), key);
  }

  private async dropAppCopy(key: string) {
    const sealed = await this.appSealed();
    if (!Object.hasOwn(sealed, key)) return;
    delete sealed[key];
    await writeFileAtomic(keychainSealedFile(this.dataDir), JSON.stringify(sealed));
  }

  private async appSealed(): Promise<Record<string, string>> {
    try {
      return JSON.parse(await readFile(keychainSealedFile(this.dataDir), 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }
}
