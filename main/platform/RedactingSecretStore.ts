import { isMaskedInRecords } from '../../shared/serverSecrets';
import type { Logger } from './Logger';
import type { SecretRedactor } from './SecretRedactor';
import type { SecretStore } from './SecretStore';

/**
 * The console's SecretStore as every service sees it: each value stored — at start, and whenever
 * one is set later (a token refreshed, a header saved) — is also taught to the redactor, so
 * history, transcripts, errors and logs mask it wherever it appears verbatim (short values of a
 * saved server's settings that are no credentials excepted: isMaskedInRecords). Deleted values
 * stay masked: they may still be in earlier records.
 */
export class RedactingSecretStore implements SecretStore {
  constructor(
    private readonly inner: SecretStore,
    readonly redactor: SecretRedactor,
  ) {}

  /**
   * Reads every stored value once, so secrets saved by an earlier run are masked from the start.
   * A store that cannot be read now (an OS keychain still locked) is skipped: its values are learned
   * when they are first read for use.
   */
  async learnStoredValues(): Promise<void> {
    let keys: string[];
    try {
      keys = await this.inner.keys();
    } catch {
      return;
    }
    for (const key of keys) {
      const value = await this.inner.get(key).catch(() => undefined);
      if (value !== undefined) this.learn(key, value);
    }
  }

  async get(key: string) {
    const value = await this.inner.get(key);
    if (value !== undefined) this.learn(key, value);
    return value;
  }

  async set(key: string, value: string) {
    this.learn(key, value);
    await this.inner.set(key, value);
  }

  delete(key: string) {
    return this.inner.delete(key);
  }

  keys() {
    return this.inner.keys();
  }

  private learn(key: string, value: string) {
    if (isMaskedInRecords(key, value)) this.redactor.add(value);
  }
}

/** Log lines and their fields pass through the redactor before they reach the log. */
export function redactingLogger(logger: Logger, redactor: SecretRedactor): Logger {
  const wrap =
    (write: Logger['info']): Logger['info'] =>
    (message, fields) =>
      write(redactor.text(message), fields && redactor.value(fields));
  return { debug: wrap(logger.debug.bind(logger)), info: wrap(logger.info.bind(logger)), warn: wrap(logger.warn.bind(logger)), error: wrap(logger.error.bind(logger)) };
}
