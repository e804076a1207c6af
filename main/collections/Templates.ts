import { AppError } from '../../shared/errors';
import { collectionSecretKey } from '../../shared/collections';
import type { SecretStore } from '../platform/SecretStore';

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const SECRET_PREFIX = 'secret:';
/** Variables may refer to variables; deeper than this is taken for a loop. */
const MAX_DEPTH = 16;

export function isSecretReference(name: string): boolean {
  return name.startsWith(SECRET_PREFIX);
}

/** Every placeholder name in a value (strings, arrays and object values, not keys), secrets included. */
export function placeholders(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') for (const match of value.matchAll(PLACEHOLDER)) into.add(match[1]!);
  else if (Array.isArray(value)) for (const item of value) placeholders(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) placeholders(item, into);
  return into;
}

/** The names of `{{secret:NAME}}` references in a value. */
export function secretNames(value: unknown): string[] {
  return [...placeholders(value)].filter(isSecretReference).map((name) => name.slice(SECRET_PREFIX.length));
}

/**
 * `{{var}}` and `{{secret:NAME}}` placeholders. A string that is exactly one placeholder becomes the
 * variable's value with its type (a captured number stays a number); placeholders inside longer
 * strings are spliced in as text. Secrets are read once per run, up front (`loadSecrets`), so every
 * secret value is known to the redactor before any result is reported.
 */
export class Templates {
  private readonly secretValues = new Map<string, string>();
  private readonly missingSecrets = new Set<string>();

  constructor(private readonly variables: Map<string, unknown>) {}

  async loadSecrets(names: Iterable<string>, store: SecretStore): Promise<void> {
    for (const name of new Set(names)) {
      if (this.secretValues.has(name) || this.missingSecrets.has(name)) continue;
      const value = await store.get(collectionSecretKey(name));
      if (value === undefined) this.missingSecrets.add(name);
      else this.secretValues.set(name, value);
    }
  }

  /** The secret values read so far: what the redactor masks. */
  secrets(): string[] {
    return [...this.secretValues.values()];
  }

  set(name: string, value: unknown): void {
    this.variables.set(name, value);
  }

  /** Variable names a value depends on, through the variables it names (secrets excluded). */
  dependencies(value: unknown, into = new Set<string>(), depth = 0): Set<string> {
    for (const name of placeholders(value)) {
      if (isSecretReference(name) || into.has(name)) continue;
      into.add(name);
      if (depth < MAX_DEPTH && this.variables.has(name)) this.dependencies(this.variables.get(name), into, depth + 1);
    }
    return into;
  }

  /** Throws InvalidInput for an undefined variable and NotFound for a secret that is not set. */
  resolve(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.resolveString(value, depth);
    if (Array.isArray(value)) return value.map((item) => this.resolve(item, depth));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v, depth)]));
    return value;
  }

  private resolveString(text: string, depth: number): unknown {
    if (!text.includes('{{')) return text;
    if (depth > MAX_DEPTH) throw new AppError('InvalidInput', `Variables refer to each other in a loop (while resolving "${text}")`);
    const whole = WHOLE_PLACEHOLDER.exec(text);
    if (whole) return this.lookup(whole[1]!, depth);
    return text.replace(PLACEHOLDER, (_, name: string) => {
      const value = this.lookup(name, depth);
      return typeof value === 'string' ? value : JSON.stringify(value);
    });
  }

  private lookup(name: string, depth: number): unknown {
    if (isSecretReference(name)) {
      const secret = name.slice(SECRET_PREFIX.length);
      const value = this.secretValues.get(secret);
      if (value === undefined) throw new AppError('NotFound', `The secret "${secret}" is not set (secret store key ${collectionSecretKey(secret)})`);
      return value;
    }
    if (!this.variables.has(name)) {
      throw new AppError('InvalidInput', `{{${name}}} is not defined: set it in the collection's variables, an environment file, or capture it from an earlier request`);
    }
    return this.resolve(this.variables.get(name), depth + 1);
  }
}
