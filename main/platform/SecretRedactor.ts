import { SECRET_PLACEHOLDER } from '../../shared/secrets';

export const REDACTED = SECRET_PLACEHOLDER;

export interface SecretRedactorOptions {
  /**
   * Values shorter than this are not masked. The console-wide redactor ignores one- to three-character
   * "secrets" (masking every `a` would garble history); a collection run masks everything it was
   * told is secret: a garbled report is better than a leaked one.
   */
  minLength?: number;
}

/**
 * Replaces every occurrence of known secret values — in text, in keys and values of JSON-like
 * data — with `***`, wherever a tool, a server or an error message echoed them. Longest first, so
 * a secret that contains another is masked whole; a value's URL-encoded form is masked too, since
 * secrets travel in URLs.
 */
export class SecretRedactor {
  private readonly values = new Set<string>();
  private pattern: RegExp | undefined;
  private readonly minLength: number;

  constructor(secrets: Iterable<string> = [], options: SecretRedactorOptions = {}) {
    this.minLength = options.minLength ?? 1;
    this.add(...secrets);
  }

  add(...secrets: string[]): void {
    let changed = false;
    for (const secret of secrets.flatMap(credentialParts)) {
      if (secret.length < this.minLength || secret === REDACTED) continue;
      for (const form of new Set([secret, encodeURIComponent(secret)])) {
        if (this.values.has(form)) continue;
        this.values.add(form);
        changed = true;
      }
    }
    if (changed) this.pattern = undefined;
  }

  get size(): number {
    return this.values.size;
  }

  text(text: string): string {
    if (this.values.size === 0 || text === '') return text;
    this.pattern ??= new RegExp(
      [...this.values]
        .sort((a, b) => b.length - a.length)
        .map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|'),
      'g',
    );
    return text.replace(this.pattern, REDACTED);
  }

  /**
   * Where to cut `text` at or before `end` so that the cut splits no known secret: a cut through an
   * occurrence moves to its start. Records keep a cut preview that is masked afterwards, and masking
   * finds whole values only: a secret split by the cut would keep its first characters. `alsoKeep`
   * adds values that must not be split either (a collection run's values not to be recorded).
   */
  safeEnd(text: string, end: number, alsoKeep: readonly string[] = []): number {
    return safeCutEnd(text, end, alsoKeep.length ? [...this.values, ...alsoKeep] : this.values);
  }

  /** A deep copy with secrets masked in strings and object keys. */
  value<T>(value: T): T {
    if (this.values.size === 0) return value;
    return this.visit(value) as T;
  }

  private visit(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.visit(item));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.text(k), this.visit(v)]));
    return value;
  }
}

/**
 * The largest cut position at or before `end` that splits no occurrence of `values` in `text`.
 * Only the text around the cut is searched (a result may be megabytes long); moving the cut back
 * may land it inside another occurrence, so it is checked again until it holds.
 */
export function safeCutEnd(text: string, end: number, values: Iterable<string>): number {
  const candidates = [...values].filter((value) => value.length > 1);
  let cut = Math.min(end, text.length);
  for (let moved = true; moved; ) {
    moved = false;
    for (const value of candidates) {
      // An occurrence the cut splits starts within value.length - 1 characters before it.
      const from = Math.max(0, cut - value.length + 1);
      const at = text.slice(from, cut + value.length - 1).indexOf(value);
      if (at !== -1 && from + at < cut) {
        cut = from + at;
        moved = true;
      }
    }
  }
  return cut;
}

/**
 * A stored value and the credentials inside it, which travel on their own too: the token of
 * `Bearer <token>`, the (credential-sized) values of a `Cookie` header, the password of a URL, each value of a
 * stored list.
 */
function credentialParts(value: string): string[] {
  const parts = [value, ...jsonStrings(value)];
  const scheme = /^(?:bearer|basic|token|digest|dpop)\s+(\S+)$/i.exec(value.trim());
  if (scheme) parts.push(scheme[1]!);
  // Cookie-style pairs: values of credential size only, so `theme=dark` does not mask every "dark".
  if (value.includes('=')) {
    for (const pair of value.split(/;\s*/)) {
      const pairValue = pair.slice(pair.indexOf('=') + 1);
      if (pair.includes('=') && pairValue.length >= 8) parts.push(pairValue);
    }
  }
  const password = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:([^/\s@]+)@/i.exec(value);
  if (password) parts.push(password[1]!, safeDecode(password[1]!));
  return parts;
}

/** URL query secrets are stored as a JSON list of their values (one per occurrence). */
function jsonStrings(value: string): string[] {
  if (!value.startsWith('[')) return [];
  try {
    const list: unknown = JSON.parse(value);
    return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string').flatMap((item) => [item, safeDecode(item)]) : [];
  } catch {
    return [];
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

