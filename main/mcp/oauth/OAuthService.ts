import { AppError } from '../../../shared/errors';
import type { McpServerConfig } from '../../../shared/mcp';
import { NON_INTERACTIVE_GRANTS, OAuthSettings, type OAuthLoginResult, type OAuthStatus, type SetOAuthClientInput } from '../../../shared/oauth';
import type { Logger } from '../../platform/Logger';
import { MemorySecretStore, type SecretStore } from '../../platform/SecretStore';
import type { Authorizer } from './Authorizer';
import { LoopbackAuthorizer } from './LoopbackAuthorizer';
import { isOAuthFlowError } from './OAuthFlowError';
import { describeChallenge, OAuthSession, type Challenge } from './OAuthSession';
import { OAuthStepLog } from './OAuthStepLog';
import { OAuthStore, type ServerSecretKind, type StoredTokens } from './OAuthStore';
import { InvalidSettingsError, planSettingsUpdate } from './planSettingsUpdate';
import { dpopSessionFromStored } from './signingKeys';
import { Emitter } from '../../platform/Emitter';

type HttpConfig = Extract<McpServerConfig, { transport: 'http' | 'sse' }>;

export interface OAuthServiceOptions {
  /** Where oauth.json lives; without it nothing is written to disk. */
  dataDir?: string;
  secretStore: SecretStore;
  logger: Logger;
  /** client_name in registrations and metadata. */
  clientName: string;
  /** A saved server's config. */
  config: (server: string) => McpServerConfig | undefined;
  /** (Re)connects a saved server; used to learn its challenge and once tokens are in place. */
  connect: (server: string) => Promise<void>;
  disconnect: (server: string) => Promise<void>;
  /** How long a browser sign-in may take. */
  loginTimeoutMs?: number;
}

export interface LoginOptions {
  /** Instead of the loopback listener (tests, headless runs). */
  authorizer?: Authorizer;
  timeoutMs?: number;
}

/** Settings and secrets for a connection that is not saved (the conformance client). */
export interface EphemeralOAuthOptions {
  clientName: string;
  /** As the UI or CLI would send them (secrets included); checked the same way. */
  settings?: Omit<SetOAuthClientInput, 'server'>;
  authorizer?: Authorizer;
  baseFetch?: OAuthSession['fetch'];
}

interface LoginFlow {
  authorizer?: Authorizer;
  done: Promise<void>;
  /** Once the browser has something to open. */
  readonly authorizationUrl?: string;
}

/**
 * MCP authorization for saved servers: their settings (pre-registered client, scopes, grant), the
 * step log of each, browser sign-in with a loopback redirect, sign-out, and the per-connection
 * sessions that put tokens on requests.
 */
export class OAuthService {
  private readonly store: OAuthStore;
  private readonly logs = new Map<string, OAuthStepLog>();
  private readonly challenges = new Map<string, Challenge>();
  private readonly flows = new Map<string, LoginFlow>();
  /** The latest sign-in of each server, kept after it ends so a late `waitForLogin` still sees how. */
  private readonly lastLogin = new Map<string, Promise<void>>();
  private readonly changes = new Emitter<string>((error) => this.options.logger.warn('oauth listener failed', { error: (error as Error).message }));

  constructor(private readonly options: OAuthServiceOptions) {
    this.store = new OAuthStore(options.secretStore, options.dataDir);
  }

  load(): Promise<void> {
    return this.store.load();
  }

  /** A session for one connection of a saved server: never opens a browser on its own. */
  session(config: HttpConfig): OAuthSession {
    return new OAuthSession({
      server: config.name,
      serverUrl: new URL(config.url),
      store: this.store,
      log: this.log(config.name),
      clientName: this.options.clientName,
      onChallenge: (challenge) => this.challenges.set(config.name, challenge),
    });
  }

  /** A session whose settings, secrets and tokens live only in memory. */
  static async ephemeralSession(config: HttpConfig, options: EphemeralOAuthOptions): Promise<{ session: OAuthSession; log: OAuthStepLog }> {
    const store = new OAuthStore(new MemorySecretStore());
    const update = await planSettingsUpdate({ server: config.name, ...(options.settings ?? { grant: 'authorization_code' }) }, OAuthSettings.parse({}));
    await store.update(config.name, { settings: update.settings });
    for (const [kind, value] of Object.entries(update.secrets)) await store.setSecret(config.name, kind as ServerSecretKind, value ?? undefined);
    const log = new OAuthStepLog();
    const session = new OAuthSession({ server: config.name, serverUrl: new URL(config.url), store, log, clientName: options.clientName, authorizer: options.authorizer, baseFetch: options.baseFetch });
    return { session, log };
  }

  log(server: string): OAuthStepLog {
    let log = this.logs.get(server);
    if (!log) {
      log = new OAuthStepLog();
      log.onChange(() => this.emit(server));
      this.logs.set(server, log);
    }
    return log;
  }

  async status(server: string): Promise<OAuthStatus> {
    this.requireHttp(server);
    const record = this.store.record(server);
    const tokens = record.binding ? await this.store.tokens(record.binding.issuer, record.binding.resource) : undefined;
    const log = this.log(server);
    const flow = this.flows.get(server);
    const failed = log.lastFailure();
    const state = flow ? (flow.authorizationUrl ? 'awaiting-browser' : 'working') : tokens ? 'signed-in' : failed ? 'failed' : 'signed-out';
    const dpopKey = tokens?.token_type?.toLowerCase() === 'dpop' ? await this.store.secret(server, 'dpop-key') : undefined;
    const challenge = this.challenges.get(server);
    const granted = new Set((tokens?.scope ?? '').split(' ').filter(Boolean));
    const requestedScopes = challenge?.status === 403 && challenge.scope ? challenge.scope.split(' ').filter((s) => s && !granted.has(s)) : [];
    return {
      server,
      state,
      settings: record.settings,
      issuer: tokens ? record.binding?.issuer : undefined,
      resource: tokens ? record.binding?.resource : undefined,
      scope: tokens?.scope,
      expiresAt: expiresAt(tokens),
      tokenType: tokens?.token_type,
      ...(tokens && requestedScopes.length ? { requestedScopes } : {}),
      dpopThumbprint: dpopKey ? (await dpopSessionFromStored(dpopKey))?.thumbprint : undefined,
      hasRefreshToken: !!tokens?.refresh_token,
      authorizationUrl: flow?.authorizationUrl,
      steps: log.list(),
      ...(failed ? { failure: { step: failed.kind, message: `${failed.title} failed: ${failed.error ?? 'unknown error'}` } } : {}),
    };
  }

  onChange(listener: (server: string) => void): () => void {
    return this.changes.on(listener);
  }

  /**
   * Starts a sign-in. Resolves with the authorization URL to open as soon as it exists (the flow
   * goes on until the browser comes back; see `waitForLogin`), or `authorized` when no browser was
   * needed. Rejects with the failed step when the flow stops before that.
   */
  async login(server: string, options: LoginOptions = {}): Promise<OAuthLoginResult> {
    const config = this.requireHttp(server);
    this.flows.get(server)?.authorizer?.dispose?.();
    this.lastLogin.delete(server);
    const log = this.log(server);
    log.reset();
    const { settings } = this.store.record(server);
    const interactive = !NON_INTERACTIVE_GRANTS.includes(settings.grant);
    if (!this.challenges.has(server) && interactive) {
      // Connecting as usual shows what the server asks for (its WWW-Authenticate challenge).
      try {
        await this.options.connect(server);
        return { status: 'authorized' };
      } catch (error) {
        // The connection reports authorization failures with the OAuth error as its cause.
        if (!isOAuthFlowError(error) && !isOAuthFlowError((error as Error).cause)) throw error;
      }
    }

    const challenge = this.challenges.get(server);
    if (challenge && !log.latest('challenge')) log.record('challenge', 'ok', { httpStatus: challenge.status, url: config.url, detail: `${describeChallenge(challenge)} (at the last connection attempt)` });

    let announce: (url: string) => void = () => undefined;
    const urlReady = new Promise<string>((resolve) => (announce = resolve));
    const shown: { url?: string } = {};
    // A grant without a browser runs with no authorizer: nothing is opened, nothing listens.
    const authorizer =
      options.authorizer ??
      (interactive
        ? await LoopbackAuthorizer.start({
            timeoutMs: options.timeoutMs ?? this.options.loginTimeoutMs,
            onAuthorizationUrl: (url) => {
              shown.url = url.href;
              this.emit(server);
              announce(url.href);
            },
          })
        : undefined);
    const session = new OAuthSession({ server, serverUrl: new URL(config.url), store: this.store, log, clientName: this.options.clientName, authorizer });
    const done = session
      .authorize({ challenge, force: true })
      .then(async () => {
        this.challenges.delete(server);
        await this.options.connect(server).catch((error: Error) => this.options.logger.warn('connect after sign-in failed', { server, error: error.message }));
      })
      .finally(() => {
        if (this.flows.get(server) === flow) this.flows.delete(server);
        authorizer?.dispose?.();
        this.emit(server);
      });
    const flow: LoginFlow = {
      authorizer,
      done,
      get authorizationUrl() {
        return shown.url;
      },
    };
    done.catch(() => undefined);
    this.flows.set(server, flow);
    this.lastLogin.set(server, done);
    this.emit(server);
    return Promise.race([urlReady.then((authorizationUrl) => ({ status: 'redirect' as const, authorizationUrl })), done.then(() => ({ status: 'authorized' as const }))]);
  }

  /** Resolves when the latest sign-in has tokens; rejects with the step that failed. */
  async waitForLogin(server: string): Promise<void> {
    await this.lastLogin.get(server);
  }

  /** Finishes a sign-in with a callback URL the user pasted (the browser could not reach the loopback listener). */
  async completeLogin(server: string, callbackUrl: string): Promise<void> {
    const flow = this.flows.get(server);
    if (!flow || !(flow.authorizer instanceof LoopbackAuthorizer)) throw new AppError('NotFound', `No sign-in to "${server}" is waiting for its callback`);
    try {
      flow.authorizer.deliver(callbackUrl);
    } catch (error) {
      throw new AppError('InvalidInput', `Not a callback URL: ${(error as Error).message}`);
    }
    await flow.done;
  }

  /** Deletes the server's tokens and registration from the secret store and closes its connection. */
  async logout(server: string): Promise<void> {
    this.requireHttp(server);
    const flow = this.flows.get(server);
    this.flows.delete(server);
    this.lastLogin.delete(server);
    flow?.authorizer?.dispose?.();
    await this.store.signOut(server);
    await this.options.disconnect(server);
    const log = this.log(server);
    log.reset();
    log.record('sign-out', 'ok', { detail: 'Tokens and the client registration were deleted from the secret store' });
  }

  /**
   * Replaces the server's authorization settings; secrets (client secret, private key, tokens)
   * go to the secret store, undefined keeping the stored one and '' deleting it.
   */
  async setClient(input: SetOAuthClientInput): Promise<OAuthStatus> {
    this.requireHttp(input.server);
    const record = this.store.record(input.server);
    let update;
    try {
      update = await planSettingsUpdate(input, record.settings);
    } catch (error) {
      if (error instanceof InvalidSettingsError) throw new AppError('InvalidInput', error.message);
      throw error;
    }
    for (const [kind, value] of Object.entries(update.secrets)) await this.store.setSecret(input.server, kind as ServerSecretKind, value ?? undefined);
    const clientId = update.settings.clientId;
    await this.store.update(input.server, {
      settings: update.settings,
      ...(clientId !== record.settings.clientId ? { preRegisteredIssuer: undefined } : {}),
    });
    this.emit(input.server);
    return this.status(input.server);
  }

  /** The server was removed. */
  async forget(server: string) {
    this.flows.get(server)?.authorizer?.dispose?.();
    this.flows.delete(server);
    this.lastLogin.delete(server);
    this.challenges.delete(server);
    this.logs.delete(server);
    await this.store.forget(server);
  }

  /**
   * The server now points at another origin (`destination`): the tokens, client registration and
   * DPoP key obtained for the old one are deleted, and a flow under way is abandoned. The
   * authorization settings stay (a pre-registered client id stays bound to its issuer).
   */
  async endpointMoved(server: string, destination: string) {
    const flow = this.flows.get(server);
    this.flows.delete(server);
    this.lastLogin.delete(server);
    this.challenges.delete(server);
    flow?.authorizer?.dispose?.();
    await this.store.signOut(server);
    const log = this.log(server);
    log.reset();
    log.record('sign-out', 'ok', { detail: `The server now points at ${destination}: the tokens and client registration of its earlier origin were deleted` });
    this.emit(server);
  }

  async rename(from: string, to: string) {
    await this.store.rename(from, to);
    this.challenges.delete(from);
    this.logs.delete(from);
  }

  close() {
    for (const flow of this.flows.values()) flow.authorizer?.dispose?.();
    this.flows.clear();
  }

  private requireHttp(server: string): HttpConfig {
    const config = this.options.config(server);
    if (!config) throw new AppError('NotFound', `No saved server named "${server}"`);
    if (config.transport === 'stdio') throw new AppError('InvalidInput', `"${server}" runs over stdio: MCP authorization applies to HTTP servers only`);
    return config;
  }

  private emit(server: string) {
    this.changes.emit(server);
  }
}

function expiresAt(tokens: StoredTokens | undefined): number | undefined {
  return tokens?.expires_in !== undefined && tokens.obtained_at ? tokens.obtained_at + tokens.expires_in * 1000 : undefined;
}
