import { FileSecretStore } from '../../main/platform/FileSecretStore';
import type { SecretStore } from '../../main/platform/SecretStore';
import { keychainSealedFile, secretsDir } from '../common/secretFiles';
import { SafeStorageSecretStore, type SafeStorageLike } from './SafeStorageSecretStore';

export interface DesktopSafeStorage extends SafeStorageLike {
  /** Linux only: `basic_text` means no keyring, and Chromium falls back to a fixed, public password. */
  getSelectedStorageBackend?(): string;
}

/**
 * The desktop app's secrets: sealed with the OS keychain when there is one, and readable from the
 * file the CLI seals (so a token saved with `tooldeck mcp add` works in the app). One key has one
 * value: saving it in the app removes the CLI's copy, so the CLI then says the secret needs the app
 * (app/cli/CommandLineSecretStore.ts) instead of using a stale one. On Linux without a keyring,
 * safeStorage would seal with a password everyone knows; there the app seals into the CLI's file,
 * which the CLI can read too. The CLI's file is read afresh on each use: the CLI may change it while
 * the app runs.
 */
export class DesktopSecretStore implements SecretStore {
  readonly keychain: SafeStorageSecretStore;
  private fileQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly safeStorage: DesktopSafeStorage,
    private readonly dataDir: string,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {
    this.keychain = new SafeStorageSecretStore(safeStorage, keychainSealedFile(dataDir));
  }

  /** Whether new secrets go to the OS keychain (else to the CLI's sealed file). */
  async keychainUsable(): Promise<boolean> {
    if (this.platform === 'linux' && this.safeStorage.getSelectedStorageBackend?.() === 'basic_text') return false;
    return this.safeStorage.isAsyncEncryptionAvailable();
  }

  async get(key: string) {
    if ((await this.keychain.keys()).includes(key)) return this.keychain.get(key);
    return this.withFile((file) => file.get(key));
  }

  async set(key: string, value: string) {
    if (await this.keychainUsable()) {
      await this.keychain.set(key, value);
      await this.withFile((file) => file.delete(key));
    } else {
      await this.withFile((file) => file.set(key, value));
      await this.keychain.delete(key);
    }
  }

  async delete(key: string) {
    await this.keychain.delete(key);
    await this.withFile((file) => file.delete(key));
  }

  async keys() {
    return [...new Set([...(await this.keychain.keys()), ...(await this.withFile((file) => file.keys()))])];
  }

  private withFile<T>(use: (file: FileSecretStore) => Promise<T>): Promise<T> {
    const next = this.fileQueue.then(() => use(new FileSecretStore(secretsDir(this.dataDir))));
    this.fileQueue = next.catch(() => undefined);
    return next;
  }
}
