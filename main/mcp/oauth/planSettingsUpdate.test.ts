import fc from 'fast-check';
import * as jose from 'jose';
import { describe, expect, it } from 'vitest';
import { OAuthSettings, type SetOAuthClientInput } from '../../../shared/oauth';
import { InvalidSettingsError, planSettingsUpdate } from './planSettingsUpdate';

const none = OAuthSettings.parse({});
const input = (fields: Partial<SetOAuthClientInput>): SetOAuthClientInput => ({ server: 'notes', grant: 'authorization_code', ...fields });

async function pem(alg: string): Promise<string> {
  const { privateKey } = await jose.generateKeyPair(alg, { extractable: true });
  return jose.exportPKCS8(privateKey);
}

describe('planSettingsUpdate', () => {
  it('stores a secret that is given, keeps one that is not, deletes one that is emptied', async () => {
    const first = await planSettingsUpdate(input({ grant: 'client_credentials', clientId: 'machine', clientSecret: 's3cret' }), none);
    expect(first.settings).toMatchObject({ grant: 'client_credentials', clientId: 'machine', hasClientSecret: true });
    expect(first.secrets).toEqual({ 'client-secret': 's3cret', 'idp-client-secret': null, 'id-token': null });

    const kept = await planSettingsUpdate(input({ grant: 'client_credentials', clientId: 'machine', scopes: 'a b' }), first.settings);
    expect(kept.settings).toMatchObject({ hasClientSecret: true, scopes: 'a b' });
    expect(kept.secrets['client-secret']).toBeUndefined();

    const cleared = await planSettingsUpdate(input({ clientId: 'machine', clientSecret: '' }), first.settings);
    expect(cleared.settings.hasClientSecret).toBe(false);
    expect(cleared.secrets['client-secret']).toBeNull();

    const noClient = await planSettingsUpdate(input({}), first.settings);
    expect(noClient.settings.hasClientSecret).toBe(false);
    expect(noClient.secrets).toMatchObject({ 'client-secret': null, 'private-key': null });
  });

  it('says what each grant still needs', async () => {
    const refusal = (fields: Partial<SetOAuthClientInput>) => planSettingsUpdate(input(fields), none).then(
      () => 'accepted',
      (error: Error) => (error instanceof InvalidSettingsError ? error.message : `unexpected ${error.message}`),
    );
    expect(await refusal({ grant: 'client_credentials', clientId: 'machine' })).toBe('The client credentials grant needs a pre-registered client id and its secret or private key');
    expect(await refusal({ grant: 'jwt_bearer', assertionFile: '/run/token' })).toMatch(/client id the authorization server knows the workload by/);
    expect(await refusal({ grant: 'jwt_bearer', clientId: 'w' })).toMatch(/token file .* or a stored token/);
    expect(await refusal({ grant: 'jwt_bearer', clientId: 'w', assertionFile: 'relative/token' })).toBe('assertionFile: must be an absolute path');
    expect(await refusal({ grant: 'jwt_bearer', clientId: 'w', assertionFile: '/run/token' })).toBe('accepted');
    expect(await refusal({ grant: 'enterprise_managed', clientId: 'c', clientSecret: 's', idpIssuer: 'https://idp.example' })).toMatch(/client id Tooldeck has at the identity provider/);
    expect(await refusal({ grant: 'enterprise_managed', clientId: 'c', clientSecret: 's', idpClientId: 'i' })).toMatch(/issuer or token endpoint/);
    expect(await refusal({ grant: 'enterprise_managed', clientId: 'c', clientSecret: 's', idpClientId: 'i', idpIssuer: 'https://idp.example' })).toMatch(/ID token/);
    expect(await refusal({ grant: 'enterprise_managed', clientId: 'c', clientSecret: 's', idpClientId: 'i', idpIssuer: 'ftp://idp.example', idToken: 't' })).toBe('idp.issuer: must be an http(s) URL');
    expect(await refusal({ grant: 'enterprise_managed', clientId: 'c', clientSecret: 's', idpClientId: 'i', idpIssuer: 'https://idp.example', idToken: 't' })).toBe('accepted');
    expect(await refusal({ clientId: 'c', clientAuth: 'private_key_jwt' })).toBe('private_key_jwt client authentication needs the client private key');
    expect(await refusal({ clientId: 'c', clientAuth: 'client_secret_basic' })).toBe('client_secret_basic client authentication needs the client secret');
  });

  it('checks a private key against its algorithm, guessing the algorithm from the key when none is named', async () => {
    const ec384 = await pem('ES384');
    const plan = await planSettingsUpdate(input({ grant: 'client_credentials', clientId: 'm', privateKey: ec384 }), none);
    expect(plan.settings).toMatchObject({ hasPrivateKey: true, signingAlg: 'ES384' });
    expect(plan.secrets['private-key']).toBe(ec384);

    await expect(planSettingsUpdate(input({ grant: 'client_credentials', clientId: 'm', privateKey: ec384, signingAlg: 'RS256' }), none)).rejects.toThrow(/not a PKCS #8 PEM or private JWK usable with RS256/);
    await expect(planSettingsUpdate(input({ grant: 'client_credentials', clientId: 'm', privateKey: 'not a key' }), none)).rejects.toThrow(/name its signing algorithm/);

    const { privateKey } = await jose.generateKeyPair('EdDSA', { extractable: true });
    const jwk = JSON.stringify(await jose.exportJWK(privateKey));
    expect((await planSettingsUpdate(input({ grant: 'client_credentials', clientId: 'm', privateKey: jwk }), none)).settings.signingAlg).toBe('EdDSA');
    const publicOnly = JSON.stringify({ ...JSON.parse(jwk), d: undefined });
    await expect(planSettingsUpdate(input({ grant: 'client_credentials', clientId: 'm', privateKey: publicOnly, signingAlg: 'EdDSA' }), none)).rejects.toThrow(/holds no private key/);
  });

  it('never claims a secret exists that was not given or kept, whatever is asked', async () => {
    const secretField = fc.option(fc.oneof(fc.constant(''), fc.string({ minLength: 1, maxLength: 8 })), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          grant: fc.constantFrom('authorization_code', 'client_credentials', 'jwt_bearer', 'enterprise_managed' as const),
          clientId: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
          clientSecret: secretField,
          assertion: secretField,
          assertionFile: fc.option(fc.constantFrom('', '/run/t', 'rel'), { nil: undefined }),
          idpClientId: fc.option(fc.string({ maxLength: 4 }), { nil: undefined }),
          idpIssuer: fc.option(fc.constantFrom('', 'https://idp.example', 'nope'), { nil: undefined }),
          idToken: secretField,
          dpop: fc.option(fc.constantFrom('auto', 'always', 'off' as const), { nil: undefined }),
        }),
        fc.boolean(),
        async (fields, hadSecrets) => {
          const current = OAuthSettings.parse({ clientId: 'before', hasClientSecret: hadSecrets, hasAssertion: hadSecrets || undefined });
          let plan;
          try {
            plan = await planSettingsUpdate(input(fields), current);
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidSettingsError);
            return;
          }
          expect(OAuthSettings.safeParse(plan.settings).success).toBe(true);
          const expectSecret = (has: boolean | undefined, given: string | undefined, had: boolean) => expect(!!has).toBe(given === undefined ? had : given !== '');
          if (plan.settings.clientId) expectSecret(plan.settings.hasClientSecret, fields.clientSecret, hadSecrets);
          else expect(plan.settings.hasClientSecret).toBe(false);
          expectSecret(plan.settings.hasAssertion, fields.assertion, hadSecrets);
          for (const value of Object.values(plan.secrets)) expect(value === null || (typeof value === 'string' && value !== '')).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
