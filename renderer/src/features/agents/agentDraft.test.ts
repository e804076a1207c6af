import { describe, expect, it } from 'vitest';
import type { A2aAgentConfig, A2aSecuritySchemeView } from '../../../../shared/a2a';
import { draftFrom, inputFrom, withScheme } from './agentDraft';

const saved: A2aAgentConfig = {
  name: 'billing',
  url: 'http://127.0.0.1:9999',
  headers: [
    { name: 'X-Tenant', value: 'acme', secret: false },
    { name: 'X-Signature', secret: true },
  ],
  auth: { kind: 'apiKey', scheme: 'key', in: 'header', name: 'X-API-Key' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('agent form', () => {
  it('keeps stored secrets when an edit leaves their fields empty', () => {
    expect(inputFrom(draftFrom(saved))).toEqual({
      name: 'billing',
      url: 'http://127.0.0.1:9999',
      headers: [
        { name: 'X-Tenant', value: 'acme', secret: false },
        { name: 'X-Signature', secret: true },
      ],
      auth: { kind: 'apiKey', scheme: 'key', in: 'header', name: 'X-API-Key' },
    });
    expect(inputFrom({ ...draftFrom(saved), apiKey: 'new-key' }).auth).toMatchObject({ kind: 'apiKey', key: 'new-key' });
  });

  it('fills OAuth2 fields from the card scheme without overwriting what was typed', () => {
    const scheme: A2aSecuritySchemeView = {
      name: 'oauth',
      type: 'oauth2',
      detail: 'clientCredentials http://127.0.0.1:9999/oauth/token',
      flows: ['clientCredentials'],
      tokenUrl: 'http://127.0.0.1:9999/oauth/token',
      scopes: ['agent:call'],
    };
    const draft = withScheme({ ...draftFrom(), clientId: 'cid', scopes: 'custom' }, scheme);
    expect(inputFrom({ ...draft, name: 'x', url: 'http://127.0.0.1:9999', clientSecret: 's3cret' }).auth).toEqual({
      kind: 'oauth2ClientCredentials',
      scheme: 'oauth',
      clientId: 'cid',
      clientSecret: 's3cret',
      tokenUrl: 'http://127.0.0.1:9999/oauth/token',
      scopes: ['custom'],
    });
  });
});
