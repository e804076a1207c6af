import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentCredentials } from './AgentCredentials';

let credentials: AgentCredentials | undefined;
afterEach(() => credentials?.close());

describe('AgentCredentials change listeners', () => {
  it('hear each credential created or revoked in this process once, by the time the call returns, whether the folder watch or the write tells them', async () => {
    credentials = new AgentCredentials(mkdtempSync(join(tmpdir(), 'tooldeck-credentials-')));
    let changes = 0;
    credentials.onChange(() => changes++);
    await credentials.create('reader');
    expect(changes).toBe(1);
    await credentials.revoke('reader');
    expect(changes).toBe(2);
  });
});
