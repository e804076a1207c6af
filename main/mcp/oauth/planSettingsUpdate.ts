import { OAuthSettings, type SetOAuthClientInput } from '../../../shared/oauth';
import type { ServerSecretKind } from './OAuthStore';
import { checkClientKey, guessAlgorithm } from './signingKeys';

/** What to write for each secret: a value to store, `null` to delete, absent to keep. */
export type SecretChanges = Partial<Record<ServerSecretKind, string | null>>;

export interface SettingsUpdate {
  settings: OAuthSettings;
  secrets: SecretChanges;
}

/** Thrown for settings that cannot work; the message is one sentence for the form or the CLI. */
export class InvalidSettingsError extends Error {}

/** undefined keeps, '' deletes, anything else replaces: whether the secret exists afterwards. */
function kept(input: string | undefined, had: boolean | undefined): boolean {
  return input === undefined ? !!had : input !== '';
}

function change(input: string | undefined): string | null | undefined {
  return input === undefined ? undefined : input === '' ? null : input;
}

/**
 * The settings (and secret writes) that `input` asks for over `current`, checked for what each
 * grant needs: a grant without a browser needs a pre-registered client and its credential, a
 * private key must import for its algorithm, a workload identity grant needs its token, an
 * enterprise-managed one its identity provider and ID token.
 */
export async function planSettingsUpdate(input: SetOAuthClientInput, current: OAuthSettings): Promise<SettingsUpdate> {
  const clientId = input.clientId || undefined;
  const hasClientSecret = !!clientId && kept(input.clientSecret, current.hasClientSecret);
  const hasPrivateKey = !!clientId && kept(input.privateKey, current.hasPrivateKey);
  const newKey = input.privateKey || undefined;
  const signingAlg = hasPrivateKey ? (input.signingAlg ?? (newKey ? guessAlgorithm(newKey) : current.signingAlg)) : undefined;
  const hasIdp = !!(input.idpClientId || input.idpIssuer || input.idpTokenEndpoint);
  const candidate = {
    grant: input.grant,
    clientId,
    hasClientSecret,
    scopes: input.scopes || undefined,
    clientMetadataUrl: input.clientMetadataUrl || undefined,
    clientAuth: input.clientAuth,
    hasPrivateKey: hasPrivateKey || undefined,
    signingAlg,
    dpop: input.dpop === 'auto' ? undefined : input.dpop,
    assertionFile: input.assertionFile || undefined,
    hasAssertion: kept(input.assertion, current.hasAssertion) || undefined,
    idp: hasIdp
      ? {
          issuer: input.idpIssuer || undefined,
          tokenEndpoint: input.idpTokenEndpoint || undefined,
          clientId: input.idpClientId ?? '',
          hasClientSecret: kept(input.idpClientSecret, current.idp?.hasClientSecret) || undefined,
          idTokenFile: input.idTokenFile || undefined,
          hasIdToken: kept(input.idToken, current.idp?.hasIdToken) || undefined,
        }
      : undefined,
  };
  const parsed = OAuthSettings.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidSettingsError(`${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
  }
  const settings = parsed.data;
  check(settings);
  if (newKey) {
    if (!signingAlg) throw new InvalidSettingsError('The private key is neither an RSA, EC (P-256, P-384, P-521) nor Ed25519 key: name its signing algorithm');
    try {
      await checkClientKey(newKey, signingAlg);
    } catch (error) {
      throw new InvalidSettingsError((error as Error).message);
    }
  }

  const secrets: SecretChanges = {
    'client-secret': clientId ? change(input.clientSecret) : null,
    'private-key': clientId ? change(input.privateKey) : null,
    assertion: change(input.assertion),
    'idp-client-secret': hasIdp ? change(input.idpClientSecret) : null,
    'id-token': hasIdp ? change(input.idToken) : null,
  };
  for (const key of Object.keys(secrets) as ServerSecretKind[]) if (secrets[key] === undefined) delete secrets[key];
  return { settings, secrets };
}

function check(settings: OAuthSettings): void {
  const credential = settings.hasClientSecret || settings.hasPrivateKey || settings.clientAuth === 'none';
  if (settings.clientAuth === 'private_key_jwt' && !settings.hasPrivateKey) throw new InvalidSettingsError('private_key_jwt client authentication needs the client private key');
  if ((settings.clientAuth === 'client_secret_basic' || settings.clientAuth === 'client_secret_post') && !settings.hasClientSecret) {
    throw new InvalidSettingsError(`${settings.clientAuth} client authentication needs the client secret`);
  }
  switch (settings.grant) {
    case 'client_credentials':
      if (!settings.clientId || !credential) throw new InvalidSettingsError('The client credentials grant needs a pre-registered client id and its secret or private key');
      return;
    case 'jwt_bearer':
      if (!settings.clientId) throw new InvalidSettingsError('Workload identity needs the client id the authorization server knows the workload by');
      if (!settings.assertionFile && !settings.hasAssertion) throw new InvalidSettingsError('Workload identity needs a token file (e.g. a projected service account token) or a stored token');
      return;
    case 'enterprise_managed': {
      if (!settings.clientId || !credential) throw new InvalidSettingsError('Enterprise-managed authorization needs the client id and secret (or private key) registered with the server’s authorization server');
      const { idp } = settings;
      if (!idp?.clientId) throw new InvalidSettingsError('Enterprise-managed authorization needs the client id Tooldeck has at the identity provider');
      if (!idp.issuer && !idp.tokenEndpoint) throw new InvalidSettingsError('Enterprise-managed authorization needs the identity provider’s issuer or token endpoint');
      if (!idp.idTokenFile && !idp.hasIdToken) throw new InvalidSettingsError('Enterprise-managed authorization needs the user’s ID token: a file or a stored token');
      return;
    }
    default:
      return;
  }
}
