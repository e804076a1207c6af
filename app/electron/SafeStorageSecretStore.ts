import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../main/platform/atomicWrite';
import type { SecretStore } from '../../main/platform/SecretStore';

/** The subset of Electron's safeStorage this store needs (injected, so it is testable in Node). */
export interface SafeStorageLike {
  isAsyncEncryptionAvailable(): Promise<boolean>;
  encryptStringAsync(plain: string): Promise<Buffer>;
  decryptStringAsync(encrypted: Buffer): Promise<{ result: string; shouldReEncrypt: boolean }>;
}

/**
 * Secrets sealed with the OS keychain through Electron's safeStorage (Keychain on macOS, DPAPI on
 * Windows, the Secret Service or KWallet on Linux); one base64 blob per key in a 0600 file (key
 * names are not secret: the CLI reads them to say which secrets need the app).
 * safeStorage works only once the app is ready, so nothing here touches it before the first
 * get or set — the store can be built early, and the core is created after `whenReady` anyway.
 */
export class SafeStorageSecretStore implements SecretStore {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly safeStorage: SafeStorageLike,
    readonly file: string,
  ) {}

  async get(key: string) {
    const sealed = (await this.load()).get(key);
    if (sealed === undefined) return undefined;
    const { result, shouldReEncrypt } = await this.safeStorage.decryptStringAsync(Buffer.from(sealed, 'base64'));
    // The OS rotated the key (or offers a stronger one): seal again so the old key can go.
    if (shouldReEncrypt) await this.set(key, result).catch(() => undefined);
    return result;
  }

  async set(key: string, value: string) {
    if (!(await this.safeStorage.isAsyncEncryptionAvailable())) throw new Error('OS secret storage is not available; refusing to store a secret in plaintext');
    const sealed = (await this.safeStorage.encryptStringAsync(value)).toString('base64');
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
      await writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(map)));
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Read on each use, not cached: the CLI drops a key from this file when it saves that secret itself. */
  private async load(): Promise<Map<string, string>> {
    try {
      return new Map(Object.entries(JSON.parse(await readFile(this.file, 'utf8')) as Record<string, string>));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return new Map();
    }
  }
}
