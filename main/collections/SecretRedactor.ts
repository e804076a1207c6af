export const REDACTED = '***';

/**
 * Replaces every occurrence of the run's secret values in anything reported (arguments sent,
 * actual values, messages, captures), wherever a tool echoed them. Longest first, so a secret that
 * contains another is masked whole. Short secrets are masked too: a garbled report is better than
 * a leaked one.
 */
export class SecretRedactor {
  private readonly values: string[];

  constructor(secrets: Iterable<string>) {
    this.values = [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  }

  text(text: string): string {
    let out = text;
    for (const secret of this.values) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }

  /** A deep copy with secrets masked in strings and object keys. */
  value<T>(value: T): T {
    if (this.values.length === 0) return value;
    return this.visit(value) as T;
  }

  private visit(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.visit(item));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.text(k), this.visit(v)]));
    return value;
  }
}
