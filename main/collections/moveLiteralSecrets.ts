import { collectionSecretKey, type Collection } from '../../shared/collections';
import type { SecretStore } from '../platform/SecretStore';
import { isSecretKey, MASK as HISTORY_MASK } from '../registry/recordedArguments';

export interface MovedSecrets {
  collection: Collection;
  /** Secret names now referenced whose values went to the secret store. */
  stored: string[];
  /** Secret names referenced in place of a masked value (a call saved from history): set them before running. */
  unset: string[];
}

/**
 * Keeps secrets out of collection files: a literal value under a secret-looking key (token,
 * password, apiKey…) in variables or arguments goes to the secret store and the file gets a
 * `{{secret:NAME}}` reference instead. A value history had already masked becomes a reference to a
 * secret the operator still has to set.
 */
export async function moveLiteralSecrets(collection: Collection, store: SecretStore): Promise<MovedSecrets> {
  const stored: string[] = [];
  const unset: string[] = [];
  const claimed = new Set<string>();

  const baseName = (key: string) =>
    `${collection.name}_${key}`
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/[^A-Za-z0-9]+/g, '_')
      .toUpperCase();
  const secretNameFor = async (key: string, value: string): Promise<string> => {
    const base = baseName(key);
    for (let n = 1; ; n++) {
      const name = n === 1 ? base : `${base}_${n}`;
      if (claimed.has(name)) continue;
      const existing = await store.get(collectionSecretKey(name));
      if (existing === undefined || existing === value) {
        claimed.add(name);
        return name;
      }
    }
  };

  const visit = async (value: unknown, key: string | undefined): Promise<unknown> => {
    if (typeof value === 'string' && key !== undefined && isSecretKey(key) && value !== '' && !value.includes('{{')) {
      if (value === HISTORY_MASK || /^bearer \*\*\*$/i.test(value)) {
        const name = baseName(key);
        if ((await store.get(collectionSecretKey(name))) === undefined) unset.push(name);
        return `{{secret:${name}}}`;
      }
      const name = await secretNameFor(key, value);
      await store.set(collectionSecretKey(name), value);
      stored.push(name);
      return `{{secret:${name}}}`;
    }
    if (Array.isArray(value)) {
      const out = [];
      for (const item of value) out.push(await visit(item, key));
      return out;
    }
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = await visit(v, k);
      return out;
    }
    return value;
  };

  const variables = (await visit(collection.variables, undefined)) as Record<string, unknown>;
  const requests = [];
  for (const request of collection.requests) requests.push({ ...request, arguments: (await visit(request.arguments, undefined)) as Record<string, unknown> });
  return { collection: { ...collection, variables, requests }, stored, unset };
}
