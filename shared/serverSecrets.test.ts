import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { McpServerConfig } from './mcp';
import { SECRET_PLACEHOLDER } from './secrets';
import { carryPlainValues, isMaskedInRecords, keepsStoredSecrets, sealServerConfig, secretSlots, unsealServerConfig } from './serverSecrets';

const http = (url: string, headers: Record<string, string> = {}) => McpServerConfig.parse({ name: 's', transport: 'http', url, headers });
const stdio = (env: Record<string, string>) => McpServerConfig.parse({ name: 's', transport: 'stdio', command: 'x', env });

describe('sealing a server config', () => {
  it('moves every header value, a URL password and credential query values out, and puts them back exactly', () => {
    const plain = http('https://ops:p%40ss@mcp.example/mcp?api_key=k1&team=blue&api_key=k2', { Authorization: 'Bearer t', 'X-Api-Key': 'a', Cookie: 'sid=c', 'X-Team': 'blue' });
    const sealed = sealServerConfig(plain);
    expect(sealed.config).toMatchObject({
      url: 'https://ops:***@mcp.example/mcp?api_key=***&team=blue&api_key=***',
      headers: {},
      secretHeaders: ['Authorization', 'Cookie', 'X-Api-Key', 'X-Team'],
      urlSecrets: ['password', 'query:api_key'],
    });
    expect(sealed.values).toEqual({ 'header:Authorization': 'Bearer t', 'header:X-Api-Key': 'a', 'header:Cookie': 'sid=c', 'url:password': 'p%40ss', 'url:query:api_key': '["k1","k2"]', 'header:X-Team': 'blue' });
    expect(secretSlots(sealed.config).sort()).toEqual(Object.keys(sealed.values).sort());
    expect(unsealServerConfig(sealed.config, sealed.values)).toEqual(plain);
  });

  it('seals every env and header value whatever its name, and leaves only empty values in the file', () => {
    const sealed = sealServerConfig(stdio({ GITHUB_PAT: 'plain-looking-value', DATABASE_URL: 'postgres://u:pw@h/db', LOG_LEVEL: 'debug', max: '5', EMPTY: '' }));
    expect(sealed.config).toMatchObject({ env: { EMPTY: '' }, secretEnv: ['DATABASE_URL', 'GITHUB_PAT', 'LOG_LEVEL', 'max'] });
    expect(sealed.values).toMatchObject({ 'env:GITHUB_PAT': 'plain-looking-value', 'env:LOG_LEVEL': 'debug', 'env:max': '5' });
    expect(sealServerConfig(http('https://h.example/mcp', { 'X-Team': 'ops', 'X-Tenant-Ref': 'acme-prod-7781' })).config).toMatchObject({ headers: {}, secretHeaders: ['X-Team', 'X-Tenant-Ref'] });
  });

  it('masks in records every credential, and other sealed settings from eight characters', () => {
    expect(isMaskedInRecords('mcp:s:env:GITHUB_PAT', 'plain-looking-value')).toBe(true);
    expect(isMaskedInRecords('mcp:s:env:API_TOKEN', 'tok1')).toBe(true);
    expect(isMaskedInRecords('mcp:s:env:DEBUG', 'true')).toBe(false);
    expect(isMaskedInRecords('mcp:s:header:X-Port', '3001')).toBe(false);
    expect(isMaskedInRecords('mcp:s:bearer', 'tok1')).toBe(true);
    expect(isMaskedInRecords('mcp:s:oauth:client-secret', 'abcd')).toBe(true);
  });

  it('treats *** as "keep the stored value"', () => {
    const sealed = sealServerConfig(http(`https://u:${SECRET_PLACEHOLDER}@h.example/mcp`, { Authorization: SECRET_PLACEHOLDER }));
    expect(sealed.values).toEqual({});
    expect(sealed.kept.sort()).toEqual(['header:Authorization', 'url:password']);
  });

  it('round-trips any headers, env and query values (property)', () => {
    const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,15}$/);
    const value = fc.string({ minLength: 1, maxLength: 24 }).filter((v) => v !== SECRET_PLACEHOLDER && v.trim() === v && !/[\r\n]/.test(v));
    fc.assert(
      fc.property(fc.dictionary(name, value), fc.dictionary(name, value, { maxKeys: 4 }), (headers, query) => {
        const search = Object.entries(query).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
        const plain = http(`https://host.example/mcp${search ? `?${search}` : ''}`, headers);
        const sealed = sealServerConfig(plain);
        // Nothing sealed stays in the config: no sealed header, and each sealed query value is the
        // placeholder. (Checked field by field: a one-character secret such as "," also occurs in
        // any JSON text by coincidence.)
        const config = sealed.config as typeof sealed.config & { url: string; headers: Record<string, string>; secretHeaders: string[]; urlSecrets: string[] };
        for (const name of config.secretHeaders) expect(config.headers[name]).toBeUndefined();
        const sealedQuery = new URL(config.url).searchParams;
        for (const part of config.urlSecrets.filter((p) => p.startsWith('query:'))) {
          for (const stored of sealedQuery.getAll(part.slice('query:'.length))) expect(stored).toBe(SECRET_PLACEHOLDER);
        }
        const unsealed = unsealServerConfig(sealed.config, sealed.values) as typeof plain & { url: string };
        // The same URL, though serializing may have percent-encoded what the user left bare.
        expect({ ...unsealed, url: new URL(unsealed.url).toString() }).toEqual({ ...plain, url: new URL((plain as { url: string }).url).toString() });
        const env = sealServerConfig(stdio(headers));
        expect(unsealServerConfig(env.config, env.values)).toEqual(stdio(headers));
      }),
      { numRuns: 500 },
    );
  });
});

describe("a registry's readable values", () => {
  it('stay in the file as they are, while every other value is sealed', () => {
    const installed = McpServerConfig.parse({ name: 's', transport: 'stdio', command: 'x', env: { PLAIN_SETTING: 'shown', TOKEN: 't' }, plainEnv: ['PLAIN_SETTING'] });
    const sealed = sealServerConfig(installed);
    expect(sealed.config).toMatchObject({ env: { PLAIN_SETTING: 'shown' }, secretEnv: ['TOKEN'] });
    expect(sealed.values).toEqual({ 'env:TOKEN': 't' });
    const remote = sealServerConfig(McpServerConfig.parse({ name: 's', transport: 'http', url: 'https://mcp.example/mcp', headers: { 'X-Client': 'tooldeck', 'X-Api-Key': 'k' }, plainHeaders: ['X-Client'] }));
    expect(remote.config).toMatchObject({ headers: { 'X-Client': 'tooldeck' }, secretHeaders: ['X-Api-Key'] });
  });

  it('stay readable through an edit that leaves them as they were; a value the edit changes is sealed', () => {
    const saved = sealServerConfig(McpServerConfig.parse({ name: 's', transport: 'stdio', command: 'x', env: { PLAIN_SETTING: 'shown', OTHER: 'o' }, plainEnv: ['PLAIN_SETTING', 'OTHER'] })).config;
    // The edit form sends the env it shows, without plainEnv.
    const edited = carryPlainValues(stdio({ PLAIN_SETTING: 'shown', OTHER: 'typed now' }), saved);
    expect(sealServerConfig(edited).config).toMatchObject({ env: { PLAIN_SETTING: 'shown' }, secretEnv: ['OTHER'] });
    expect(carryPlainValues(stdio({ A: 'a' }), undefined)).toEqual(stdio({ A: 'a' }));
  });
});

describe('which stored secrets an edit keeps', () => {
  it('keeps them on the same origin only: another host, port or scheme (https to http included) starts with none', () => {
    const before = http('https://mcp.example/mcp');
    expect(keepsStoredSecrets(before, http('https://mcp.example/other?x=1'))).toBe(true);
    expect(keepsStoredSecrets(before, http('https://u:***@mcp.example:443/mcp'))).toBe(true);
    expect(keepsStoredSecrets(before, http('http://mcp.example/mcp'))).toBe(false);
    expect(keepsStoredSecrets(before, http('https://mcp.example:8443/mcp'))).toBe(false);
    expect(keepsStoredSecrets(before, http('https://mcp.example.attacker.test/mcp'))).toBe(false);
    expect(keepsStoredSecrets(before, stdio({}))).toBe(false);
    expect(keepsStoredSecrets(stdio({ A: '1' }), stdio({ B: '2' }))).toBe(true);
  });

  it('follows the one rule every credential follows: an upgrade from http to https on the same host keeps them', () => {
    expect(keepsStoredSecrets(http('http://mcp.example/mcp'), http('https://mcp.example/mcp'))).toBe(true);
    expect(keepsStoredSecrets(http('http://127.0.0.1:3001/mcp'), http('https://127.0.0.1:3001/mcp'))).toBe(true);
    expect(keepsStoredSecrets(http('http://127.0.0.1:3001/mcp'), http('http://127.0.0.1:3002/mcp'))).toBe(false);
  });
});
