import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SecretStore } from '../../main/platform/SecretStore';

/** The subset of Electron's safeStorage this store needs (injected, so it is testable in Node). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

/** Secrets sealed with the OS keychain through Electron's safeStorage; one base64 blob per key. */
export class SafeStorageSecretStore implements SecretStore {
  private cache?: Map<string, string>;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly safeStorage: SafeStorageLike,
    private readonly file: string,
  ) {}

  async get(key: string) {
    const sealed = (await this.load()).get(key);
    return sealed === undefined ? undefined : this.safeStorage.decryptString(Buffer.from(sealed, 'base64'));
  }

  async set(key: string, value: string) {
    if (!this.safeStorage.isEncryptionAvailable()) throw new Error('OS secret storage is not available; refusing to store a secret in plaintext');
    const sealed = this.safeStorage.encryptString(value).toString('base64');
    await this.mutate((map) => map.set(key, sealed));
  }

  async delete(key: string) {
    await this.mutate((map) => map.delete(key));
  }

  async keys() {
    return [...(await this.load()).keys()];
  }

  private mutate(change: (map: Map<string, string>) => void): Promise<void> {
    const next = this.queue.then(async () => {
      const map = await this.load();
      change(map);
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      const temp = `${this.file}.tmp`;
      await writeFile(temp, JSON.stringify(Object.fromEntries(map)), { mode: 0o600 });
      await rename(temp, this.file);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async load() {
    if (this.cache) return this.cache;
    try {
      this.cache = new Map(Object.entries(JSON.parse(await readFile(this.file, 'utf8')) as Record<string, string>));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.cache = new Map();
    }
    return this.cache;
  }
}
