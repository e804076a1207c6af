import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic, writeFileAtomicIfAbsent } from './atomicWrite';
import type { SecretStore } from './SecretStore';

interface SealedFile {
  version: 1;
  /** base64 IV + auth tag + ciphertext of the JSON map, AES-256-GCM. */
  iv: string;
  tag: string;
  data: string;
}

/**
 * Secret store for browser and CLI mode: an AES-256-GCM sealed file, mode 0600, whose key sits in a
 * separate 0600 key file. Values never appear in plaintext on disk, so a stray backup or `grep` of
 * the data dir does not leak them; the OS account boundary is the protection, as with ssh keys.
 * (Electron uses safeStorage instead, which binds the key to the OS keychain.)
 */
export class FileSecretStore implements SecretStore {
  private readonly file: string;
  private readonly keyFile: string;
  private cache?: Map<string, string>;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(dir: string) {
    this.file = join(dir, 'secrets.sealed');
    this.keyFile = join(dir, 'secrets.key');
  }

  async get(key: string) {
    return (await this.load()).get(key);
  }

  async set(key: string, value: string) {
    await this.mutate((map) => map.set(key, value));
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
      await this.save(map);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * The key, made on first use. It is flushed to disk before any sealed file can depend on it (a
   * crash must not keep the sealed file and lose its key), and never replaced: when another
   * process (the CLI beside a running console) makes one at the same moment, the first one written
   * is the key both use.
   */
  private async key(): Promise<Buffer> {
    const existing = await this.readKey();
    if (existing) return existing;
    const fresh = randomBytes(32);
    if (await writeFileAtomicIfAbsent(this.keyFile, fresh.toString('base64'), 0o600)) return fresh;
    const winner = await this.readKey();
    if (!winner) throw new Error(`${this.keyFile} disappeared while it was being created`);
    return winner;
  }

  private async readKey(): Promise<Buffer | undefined> {
    try {
      return Buffer.from(await readFile(this.keyFile, 'utf8'), 'base64');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  private async load(): Promise<Map<string, string>> {
    if (this.cache) return this.cache;
    let sealed: SealedFile;
    try {
      sealed = JSON.parse(await readFile(this.file, 'utf8')) as SealedFile;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.cache = new Map();
      return this.cache;
    }
    const decipher = createDecipheriv('aes-256-gcm', await this.key(), Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
    this.cache = new Map(Object.entries(JSON.parse(plain.toString('utf8')) as Record<string, string>));
    return this.cache;
  }

  private async save(map: Map<string, string>) {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.key(), iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(Object.fromEntries(map)), 'utf8'), cipher.final()]);
    const sealed: SealedFile = { version: 1, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
    await writeFileAtomic(this.file, JSON.stringify(sealed));
  }
}
