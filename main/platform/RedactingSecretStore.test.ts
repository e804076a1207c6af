import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { createCore } from '../core';
import { FileSecretStore } from './FileSecretStore';
import type { Logger } from './Logger';
import { RedactingSecretStore, redactingLogger } from './RedactingSecretStore';
import { SecretRedactor } from './SecretRedactor';
import { MemorySecretStore, type SecretStore } from './SecretStore';
import { operatorCaller } from '../../shared/caller';

interface LogLine {
  level: keyof Logger;
  message: string;
  fields?: Record<string, unknown>;
}

/** A logger that keeps what reaches it: what the redacting logger let through is what a log file would hold. */
function capturingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: keyof Logger) =>
    (message: string, fields?: Record<string, unknown>) =>
      void lines.push(fields === undefined ? { level, message } : { level, message, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('RedactingSecretStore and redactingLogger', () => {
  it("masks a saved server's sealed settings in records, except short ones that are no credentials", async () => {
    const redactor = new SecretRedactor([], { minLength: 4 });
    const store = new RedactingSecretStore(new MemorySecretStore(), redactor);
    await store.set('mcp:local:env:GITHUB_PAT', 'patvalue-5d2e81c0');
    await store.set('mcp:local:env:API_TOKEN', 'tok1');
    await store.set('mcp:local:env:DEBUG', 'true');
    await store.set('mcp:local:env:PORT', '3001');
    expect(redactor.text('patvalue-5d2e81c0 tok1 {"ok":true,"port":3001}')).toBe('*** *** {"ok":true,"port":3001}');
  });

  it('masks a value stored before it was created, from the first log line on, in the message and at any depth of the fields', async () => {
    const inner = new MemorySecretStore();
    // Stored by an earlier run, and never read in this one: only learnStoredValues can teach it.
    await inner.set('mcp:old:header:X-Api-Key', 'earlier-key-6a1f93');
    const redactor = new SecretRedactor([], { minLength: 4 });
    const store = new RedactingSecretStore(inner, redactor);
    const sink = capturingLogger();
    const logger = redactingLogger(sink, redactor);

    logger.info('before learning: earlier-key-6a1f93');
    await store.learnStoredValues();
    logger.warn('connect failed with earlier-key-6a1f93', { headers: { 'X-Api-Key': 'earlier-key-6a1f93' }, attempts: [{ url: 'https://x.example/?k=earlier-key-6a1f93' }], count: 3 });
    logger.error('earlier-key-6a1f93');

    expect(sink.lines).toEqual([
      // The control: the value was unknown until learnStoredValues ran.
      { level: 'info', message: 'before learning: earlier-key-6a1f93' },
      { level: 'warn', message: 'connect failed with ***', fields: { headers: { 'X-Api-Key': '***' }, attempts: [{ url: 'https://x.example/?k=***' }], count: 3 } },
      { level: 'error', message: '***' },
    ]);
  });

  it('masks a value as soon as it is set or read, and still after it is deleted (earlier records may hold it)', async () => {
    const inner = new MemorySecretStore();
    const redactor = new SecretRedactor([], { minLength: 4 });
    const store = new RedactingSecretStore(inner, redactor);
    const sink = capturingLogger();
    const logger = redactingLogger(sink, redactor);

    await store.set('oauth:remote:access', 'Bearer refreshed-token-41c0');
    // Written behind the wrapper's back (another process), then read through it.
    await inner.set('mcp:cli:env:API_TOKEN', 'from-the-cli-77e2');
    expect(await store.get('mcp:cli:env:API_TOKEN')).toBe('from-the-cli-77e2');
    await store.delete('oauth:remote:access');
    // The token inside `Bearer …` travels on its own too, so it is masked on its own.
    logger.debug('sent refreshed-token-41c0 and from-the-cli-77e2');
    expect(sink.lines).toEqual([{ level: 'debug', message: 'sent *** and ***' }]);
  });

  it('skips a store that cannot list its keys yet (a locked keychain) and learns its values when they are read', async () => {
    const inner = new MemorySecretStore();
    await inner.set('mcp:locked:header:Authorization', 'locked-value-0b9d');
    const locked: SecretStore = { ...bind(inner), keys: () => Promise.reject(new Error('keychain locked')) };
    const redactor = new SecretRedactor([], { minLength: 4 });
    const store = new RedactingSecretStore(locked, redactor);

    await expect(store.learnStoredValues()).resolves.toBeUndefined();
    expect(redactor.text('locked-value-0b9d')).toBe('locked-value-0b9d');
    await store.get('mcp:locked:header:Authorization');
    expect(redactor.text('locked-value-0b9d')).toBe('***');
  });
});

/** The store's methods as plain functions, so one of them can be replaced. */
function bind(store: SecretStore): SecretStore {
  return { get: (k) => store.get(k), set: (k, v) => store.set(k, v), delete: (k) => store.delete(k), keys: () => store.keys() };
}

describe('the console (createCore) masks a secret stored by an earlier run', () => {
  it('in a later log line and in the history record of a call that echoes it, also where the preview cut would split it', { timeout: 30_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-redacting-'));
    const secret = 'earlier-run-secret-93c1d7a4';
    // A "secret" of three characters: the console's redactor ignores those (minLength 4), since
    // masking every "abc" would garble ordinary text. Kept here so the documented limit stays true.
    const tiny = 'q7z';
    // An earlier run (the CLI, say) sealed them into the data dir; this run has never read them.
    const earlier = new FileSecretStore(join(dataDir, 'secrets'));
    await earlier.set('mcp:gone:header:X-Api-Key', secret);
    await earlier.set('mcp:gone:env:PIN', tiny);

    const sink = capturingLogger();
    const core = await createCore({ exampleWorkspace: false, appVersion: '0.0.0-test', host: 'cli', dataDir, secretStore: new FileSecretStore(join(dataDir, 'secrets')), logger: sink, shutdownGraceMs: 200 });
    try {
      core.logger.warn(`upstream said: invalid key ${secret}`, { sent: { 'X-Api-Key': secret } });
      core.logger.info(`pin ${tiny}`);
      expect(sink.lines.slice(-2)).toEqual([
        { level: 'warn', message: 'upstream said: invalid key ***', fields: { sent: { 'X-Api-Key': '***' } } },
        { level: 'info', message: `pin ${tiny}` },
      ]);

      // A real server echoes the secret back. server-everything's echo answers "Echo: <message>",
      // and history keeps the first 200 characters of a result: the second copy is placed across
      // that cut, where masking only whole values would leave its first characters behind.
      await core.mcp.save({ config: everythingStdio() as never });
      const prefix = 'Echo: ';
      const head = `${secret} `;
      const message = `${head}${'.'.repeat(190 - prefix.length - head.length)}${secret} and more after it`;
      expect(`${prefix}${message}`.indexOf(secret, prefix.length + 1)).toBe(190);
      const outcome = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:everything.echo', arguments: { message } });
      // The caller gets the tool's answer as it is; only what is kept is masked.
      expect((outcome.result?.content as Array<{ text: string }>)[0]!.text).toBe(`${prefix}${message}`);

      const [record] = (await core.history.list({ limit: 1 })).items;
      expect(record).toMatchObject({ tool: 'echo', status: 'ok' });
      expect(record!.argumentsJson).toBe(JSON.stringify({ message: message.split(secret).join('***') }));
      expect(record!.resultPreview.startsWith(`${prefix}*** ...`)).toBe(true);
      expect(record!.resultPreview.length).toBeLessThanOrEqual(200);
      // No piece of the secret of four characters or more survives anywhere in the record.
      for (const field of [record!.argumentsJson, record!.resultPreview]) {
        for (let start = 0; start + 4 <= secret.length; start++) expect(field, field).not.toContain(secret.slice(start, start + 4));
      }
    } finally {
      await core.close();
    }
  });
});
