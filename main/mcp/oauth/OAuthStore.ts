import { join } from 'node:path';
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { OAuthSettings } from '../../../shared/oauth';
import { JsonFile } from '../../platform/JsonFile';
import type { SecretStore } from '../../platform/SecretStore';

const ServerRecord = z.object({
  settings: OAuthSettings.default({ grant: 'authorization_code', hasClientSecret: false }),
  /** The authorization server and resource the stored tokens belong to: the secret store key of this server's tokens. */
  binding: z.object({ issuer: z.string(), resource: z.string() }).optional(),
  /** The issuer a pre-registered client id was first used with: it is not sent to any other (SEP-2352). */
  preRegisteredIssuer: z.string().optional(),
  /** Discovery results (public metadata), so a refresh after a restart need not rediscover. */
  discovery: z.record(z.string(), z.unknown()).optional(),
});
export type ServerOAuthRecord = z.infer<typeof ServerRecord>;

const OAuthFile = z.object({ version: z.literal(1), servers: z.record(z.string(), ServerRecord) });
type OAuthFile = z.infer<typeof OAuthFile>;
const emptyOAuthFile = (): OAuthFile => ({ version: 1, servers: {} });

/** Tokens as stored: the SDK's shape plus when they were obtained, so expiry is known without asking. */
export type StoredTokens = StoredOAuthTokens & { obtained_at: number };

/**
 * The secrets a server's authorization settings may hold: the client's secret or private key, a
 * stored workload identity token, the identity provider's client secret and the user's ID token
 * (enterprise-managed), and the DPoP signing key tokens are bound to.
 */
export type ServerSecretKind = 'client-secret' | 'private-key' | 'assertion' | 'idp-client-secret' | 'id-token' | 'dpop-key';
const SERVER_SECRET_KINDS: readonly ServerSecretKind[] = ['client-secret', 'private-key', 'assertion', 'idp-client-secret', 'id-token', 'dpop-key'];

export const oauthServerSecretKey = (server: string, kind: ServerSecretKind) => `mcp:${server}:oauth:${kind}`;
export const oauthTokensKey = (issuer: string, resource: string) => `oauth:tokens:${issuer} ${resource}`;
export const oauthClientKey = (issuer: string, resource: string) => `oauth:client:${issuer} ${resource}`;

const defaultRecord = (): ServerOAuthRecord => ({ settings: { grant: 'authorization_code', hasClientSecret: false } });

/**
 * Authorization settings and state per server in `<dataDir>/oauth.json` (nothing secret there), and
 * the secrets in the SecretStore: tokens and dynamically registered clients keyed by issuer and
 * resource, a pre-registered client secret keyed by server. Without a file it keeps everything in
 * memory (ephemeral connections, the conformance client).
 */
export class OAuthStore {
  private data: OAuthFile = emptyOAuthFile();
  private readonly file?: JsonFile<typeof OAuthFile>;

  constructor(
    private readonly secrets: SecretStore,
    dataDir?: string,
  ) {
    this.file = dataDir ? new JsonFile(join(dataDir, 'oauth.json'), OAuthFile, emptyOAuthFile, { kind: 'authorization file' }) : undefined;
  }

  /** Reads the file (at start); a missing file is no settings yet. Without a data dir there is nothing to read. */
  async load(): Promise<void> {
    if (this.file) this.data = await this.file.read();
  }

  record(server: string): ServerOAuthRecord {
    return structuredClone(this.data.servers[server] ?? defaultRecord());
  }

  async update(server: string, patch: Partial<ServerOAuthRecord>): Promise<ServerOAuthRecord> {
    const next = { ...this.record(server), ...patch };
    for (const key of Object.keys(next) as Array<keyof ServerOAuthRecord>) if (next[key] === undefined) delete next[key];
    this.data = { ...this.data, servers: { ...this.data.servers, [server]: next } };
    await this.persist();
    return structuredClone(next);
  }

  discovery(server: string): OAuthDiscoveryState | undefined {
    return this.data.servers[server]?.discovery as OAuthDiscoveryState | undefined;
  }

  clientSecret(server: string) {
    return this.secret(server, 'client-secret');
  }

  async setClientSecret(server: string, secret: string | undefined) {
    await this.setSecret(server, 'client-secret', secret);
  }

  secret(server: string, kind: ServerSecretKind): Promise<string | undefined> {
    return this.secrets.get(oauthServerSecretKey(server, kind));
  }

  /** Stores (or, with undefined or '', deletes) one of the server's secrets. */
  async setSecret(server: string, kind: ServerSecretKind, value: string | undefined) {
    if (value) await this.secrets.set(oauthServerSecretKey(server, kind), value);
    else await this.secrets.delete(oauthServerSecretKey(server, kind));
  }

  async tokens(issuer: string, resource: string): Promise<StoredTokens | undefined> {
    return parseJson<StoredTokens>(await this.secrets.get(oauthTokensKey(issuer, resource)));
  }

  async saveTokens(issuer: string, resource: string, tokens: StoredTokens) {
    await this.secrets.set(oauthTokensKey(issuer, resource), JSON.stringify(tokens));
  }

  async deleteTokens(issuer: string, resource: string) {
    await this.secrets.delete(oauthTokensKey(issuer, resource));
  }

  async client(issuer: string, resource: string): Promise<StoredOAuthClientInformation | undefined> {
    return parseJson<StoredOAuthClientInformation>(await this.secrets.get(oauthClientKey(issuer, resource)));
  }

  async saveClient(issuer: string, resource: string, client: StoredOAuthClientInformation) {
    await this.secrets.set(oauthClientKey(issuer, resource), JSON.stringify(client));
  }

  async deleteClient(issuer: string, resource: string) {
    await this.secrets.delete(oauthClientKey(issuer, resource));
  }

  /** Sign out: the tokens, the registration and the DPoP key bound to this server go; its settings stay. */
  async signOut(server: string) {
    const { binding } = this.record(server);
    if (binding) {
      await this.deleteTokens(binding.issuer, binding.resource);
      await this.deleteClient(binding.issuer, binding.resource);
    }
    await this.setSecret(server, 'dpop-key', undefined);
    if (this.data.servers[server]) await this.update(server, { binding: undefined, discovery: undefined });
  }

  /** The server was removed: everything of it goes, settings and secrets included. */
  async forget(server: string) {
    await this.signOut(server);
    for (const kind of SERVER_SECRET_KINDS) await this.setSecret(server, kind, undefined);
    const { [server]: _gone, ...rest } = this.data.servers;
    this.data = { ...this.data, servers: rest };
    await this.persist();
  }

  async rename(from: string, to: string) {
    if (from === to || !this.data.servers[from]) return;
    const { [from]: moved, ...rest } = this.data.servers;
    this.data = { ...this.data, servers: { ...rest, [to]: moved! } };
    await this.persist();
    for (const kind of SERVER_SECRET_KINDS) {
      const value = await this.secret(from, kind);
      await this.setSecret(from, kind, undefined);
      if (value) await this.setSecret(to, kind, value);
    }
  }

  private persist(): Promise<void> {
    return this.file ? this.file.write(this.data) : Promise.resolve();
  }
}

function parseJson<T>(text: string | undefined): T | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
