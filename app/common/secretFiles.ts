import { join } from 'node:path';

/**
 * Where each host keeps secrets inside the data folder. The desktop app seals with the OS keychain
 * (Electron's safeStorage, which only the app can open); the CLI and browser mode seal with a key
 * file beside the secrets (main/platform/FileSecretStore.ts), which the app can read too.
 */
export const SECRETS_DIR = 'secrets';
export const KEYCHAIN_SEALED_FILE = 'secrets.safestorage.json';

export function secretsDir(dataDir: string): string {
  return join(dataDir, SECRETS_DIR);
}

export function keychainSealedFile(dataDir: string): string {
  return join(dataDir, SECRETS_DIR, KEYCHAIN_SEALED_FILE);
}
