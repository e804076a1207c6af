/**
 * Where tokens, API keys and client secrets live. Nothing else in the app may persist a secret:
 * configs hold a secret *reference* (its key) and resolve it through this interface.
 */
export interface SecretStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  keys(): Promise<string[]>;
}

/** Volatile store for tests and one-shot CLI calls that must not touch the user's secrets. */
export class MemorySecretStore implements SecretStore {
  private readonly values = new Map<string, string>();

  async get(key: string) {
    return this.values.get(key);
  }
  async set(key: string, value: string) {
    this.values.set(key, value);
  }
  async delete(key: string) {
    this.values.delete(key);
  }
  async keys() {
    return [...this.values.keys()];
  }
}
