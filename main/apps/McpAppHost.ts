import { operatorCaller } from '../../shared/caller';
import { randomBytes } from 'node:crypto';
import { AppResourceMeta, MCP_APP_MIME_TYPE, type AppActivity, type AppCallToolInput, type CspViolation, type OpenAppInput, type OpenedApp } from '../../shared/apps';
import { AppError } from '../../shared/errors';
import type { InvocationOutcome } from '../../shared/registry';
import type { Logger } from '../platform/Logger';
import type { McpService } from '../mcp/McpService';
import type { InvocationPipeline } from '../registry/InvocationPipeline';
import type { ToolCatalog } from '../registry/ToolCatalog';
import { toolEntryName } from '../registry/ToolCatalog';
import { allowAttribute, buildAppCsp, permissionsPolicy } from './appCsp';
import { AppOriginServer } from './AppOriginServer';
import { Emitter } from '../platform/Emitter';

export interface McpAppHostOptions {
  mcp: McpService;
  catalog: ToolCatalog;
  pipeline: InvocationPipeline;
  logger: Logger;
}

/** An app's HTML is at most this big (bundled single-file apps run to a few hundred KB). */
const MAX_HTML_BYTES = 5 * 1024 * 1024;
const MAX_OPEN_APPS = 50;
/** The origin key of apps that name no `_meta.ui.domain`: one shared loopback origin. */
const DEFAULT_ORIGIN = 'default';
const MAX_VIOLATIONS = 100;
/**
 * Every app's iframe sandbox: scripts and forms, never `allow-same-origin`, so the document runs in
 * an opaque origin isolated from the console and from every other app. This holds for an app with
 * `_meta.ui.domain` too: its serving origin is a port of 127.0.0.1, and cookies are shared by every
 * port of a host, so a same-origin app could read and set cookies that every other app and page on
 * 127.0.0.1 (the console's included) would see. No `allow-popups` (nor `allow-top-navigation`): a
 * popup would leave the app's CSP behind (its `connect-src` does not govern the new window's URL)
 * and, in the desktop app, reach the OS browser through the window's open handler. An app opens a
 * link only by asking the host (`ui/open-link`), which shows the operator the exact URL first.
 */
const SANDBOX = 'allow-scripts allow-forms';

interface AppSession {
  appId: string;
  server: string;
  tool: string;
  resourceUri: string;
  originKey: string;
  html: string;
  csp: string;
  permissionsPolicy: string;
  meta: AppResourceMeta;
  violations: CspViolation[];
  openedAt: number;
}

/**
 * MCP Apps for the console: reads a tool's `ui://` resource from its server, serves the HTML from
 * a loopback origin of its own (never the console's) with the CSP the resource declares, and
 * carries the app's requests — tools/call through the invocation pipeline (validation, policy,
 * history), resources/read — for the app of that server only. The host side of the bridge (the
 * ext-apps AppBridge) runs in the console page; this is what it asks.
 */
export class McpAppHost {
  private readonly sessions = new Map<string, AppSession>();
  private readonly origins = new Map<string, Promise<AppOriginServer>>();
  /** Opens under way per origin key: an origin they are about to use is not released under them. */
  private readonly opening = new Map<string, number>();
  private readonly changes = new Emitter<string>((error) => this.options.logger.warn('mcp app listener failed', { error: (error as Error).message }));

  constructor(private readonly options: McpAppHostOptions) {}

  async open(input: OpenAppInput): Promise<OpenedApp> {
    const entry = this.options.catalog.get(toolEntryName({ kind: 'mcp', name: input.server }, input.tool));
    if (!entry) throw new AppError('NotFound', `No tool ${input.tool} on ${input.server}`);
    const resourceUri = entry.appResourceUri;
    if (!resourceUri) throw new AppError('InvalidInput', `${input.tool} has no app (_meta.ui.resourceUri)`);
    const connection = this.options.mcp.connection(input.server);
    if (!connection || connection.state.status !== 'ready') throw new AppError('ConnectionFailed', `${input.server} is not connected`);

    const read = await connection.readResource(resourceUri);
    const contents = read.contents as unknown as Array<{ uri: string; mimeType?: string; text?: string; blob?: string; _meta?: Record<string, unknown> }>;
    const content = contents.find((c) => c.uri === resourceUri) ?? contents[0];
    if (!content) throw new AppError('ExecutionFailed', `${input.server} returned no content for ${resourceUri}`);
    const html = typeof content.text === 'string' ? content.text : typeof content.blob === 'string' ? Buffer.from(content.blob, 'base64').toString('utf8') : undefined;
    if (html === undefined) throw new AppError('ExecutionFailed', `${resourceUri} has no HTML`);
    if (Buffer.byteLength(html) > MAX_HTML_BYTES) throw new AppError('ExecutionFailed', `${resourceUri} is larger than ${MAX_HTML_BYTES / 1024 / 1024} MB`);
    const warnings: string[] = [];
    if (content.mimeType !== MCP_APP_MIME_TYPE) warnings.push(`The resource's type is ${content.mimeType ?? 'unset'}, not ${MCP_APP_MIME_TYPE}`);
    const listed = connection.snapshot().resources.find((r) => r.uri === resourceUri) as { _meta?: Record<string, unknown> } | undefined;
    const parsed = AppResourceMeta.safeParse((content._meta?.ui ?? listed?._meta?.ui ?? {}) as unknown);
    if (!parsed.success) warnings.push(`The resource's _meta.ui is malformed and was ignored: ${parsed.error.issues[0]?.message}`);
    const meta = parsed.success ? parsed.data : {};

    // `_meta.ui.domain` asks for a dedicated origin: a loopback origin of its own per server and
    // domain (a server cannot join another server's apps by naming their domain), distinct from the
    // console's and from the shared origin of apps without one.
    const originKey = meta.domain ? `domain:${JSON.stringify([input.server, meta.domain])}` : DEFAULT_ORIGIN;
    this.opening.set(originKey, (this.opening.get(originKey) ?? 0) + 1);
    let origin: AppOriginServer;
    try {
      origin = await this.origin(originKey);
    } finally {
      this.opening.set(originKey, this.opening.get(originKey)! - 1);
    }
    const appId = randomBytes(18).toString('base64url');
    const src = `${origin.origin}/app/${appId}`;
    const csp = buildAppCsp(meta, { hostOrigin: input.hostOrigin, reportUri: `/app/${appId}/csp` });
    this.sessions.set(appId, {
      appId,
      server: input.server,
      tool: input.tool,
      resourceUri,
      originKey,
      html,
      csp: csp.policy,
      permissionsPolicy: permissionsPolicy(meta),
      meta,
      violations: [],
      openedAt: Date.now(),
    });
    this.evictOldest();
    return {
      appId,
      src,
      origin: origin.origin,
      sandbox: SANDBOX,
      allow: allowAttribute(meta),
      csp: csp.policy,
      meta,
      resourceUri,
      warnings: [...warnings, ...csp.warnings],
    };
  }

  /** The app's tools/call: a tool of the app's own server, through the pipeline (policy, history, metrics). */
  async callTool(input: AppCallToolInput): Promise<InvocationOutcome> {
    const session = this.require(input.appId);
    const name = toolEntryName({ kind: 'mcp', name: session.server }, input.name);
    if (!this.options.catalog.get(name)) throw new AppError('NotFound', `The app can only call tools of ${session.server}; it has no tool ${input.name}`);
    return this.options.pipeline.invoke({ caller: operatorCaller('app', { sessionId: input.appId }), name, arguments: input.arguments, ...(input.confirmed ? { confirmed: true } : {}) });
  }

  /** The app's resources/read, on its own server. */
  async readResource(appId: string, uri: string) {
    const session = this.require(appId);
    const connection = this.options.mcp.connection(session.server);
    if (!connection || connection.state.status !== 'ready') throw new AppError('ConnectionFailed', `${session.server} is not connected`);
    return connection.readResource(uri);
  }

  activity(appId: string): AppActivity {
    return { appId, violations: [...this.require(appId).violations] };
  }

  close(appId: string) {
    const session = this.sessions.get(appId);
    this.sessions.delete(appId);
    if (session) this.releaseOrigin(session.originKey);
  }

  onChange(listener: (appId: string) => void): () => void {
    return this.changes.on(listener);
  }

  /**
   * Electron asks before granting a frame a device permission: an app frame gets what its resource
   * declared (`_meta.ui.permissions`), nothing else. `feature` is the Permission Policy name.
   */
  permits(frameUrl: string, feature: 'camera' | 'microphone' | 'geolocation' | 'clipboard-write'): boolean {
    const appId = /\/app\/([A-Za-z0-9_-]{16,64})$/.exec(safePath(frameUrl))?.[1];
    const session = appId ? this.sessions.get(appId) : undefined;
    if (!session) return false;
    const key = feature === 'clipboard-write' ? 'clipboardWrite' : feature;
    return session.meta.permissions?.[key] !== undefined;
  }

  async closeAll(): Promise<void> {
    this.sessions.clear();
    const servers = await Promise.all([...this.origins.values()].map((p) => p.catch(() => undefined)));
    this.origins.clear();
    await Promise.all(servers.map((s) => s?.close()));
  }

  private origin(key: string): Promise<AppOriginServer> {
    let origin = this.origins.get(key);
    if (!origin) {
      origin = AppOriginServer.start({
        app: (appId) => {
          const session = this.sessions.get(appId);
          return session && session.originKey === key ? session : undefined;
        },
        violation: (appId, report) => this.recordViolation(appId, report),
      });
      this.origins.set(key, origin);
      origin.catch(() => this.origins.delete(key));
    }
    return origin;
  }

  private recordViolation(appId: string, report: unknown) {
    const session = this.sessions.get(appId);
    const body = ((report as { 'csp-report'?: unknown })?.['csp-report'] ?? (Array.isArray(report) ? (report[0] as { body?: unknown })?.body : undefined) ?? report) as Record<string, unknown>;
    if (!session || !body || typeof body !== 'object') return;
    const directive = String(body['effective-directive'] ?? body.effectiveDirective ?? body['violated-directive'] ?? 'unknown');
    const blockedUri = String(body['blocked-uri'] ?? body.blockedURL ?? '');
    const sourceFile = body['source-file'] ?? body.sourceFile;
    session.violations.push({ at: Date.now(), directive, blockedUri, ...(typeof sourceFile === 'string' ? { sourceFile } : {}) });
    if (session.violations.length > MAX_VIOLATIONS) session.violations.shift();
    this.options.logger.info('mcp app blocked by its CSP', { server: session.server, tool: session.tool, directive, blockedUri });
    this.changes.emit(appId);
  }

  private evictOldest() {
    while (this.sessions.size > MAX_OPEN_APPS) this.close(this.sessions.keys().next().value!);
  }

  /**
   * A dedicated origin (an app's `_meta.ui.domain`) is a listening port of its own: it is closed
   * once no open app (nor an open under way) uses it, so a long session does not collect them. The
   * shared origin of apps without a domain stays until shutdown.
   */
  private releaseOrigin(key: string) {
    if (key === DEFAULT_ORIGIN || (this.opening.get(key) ?? 0) > 0) return;
    for (const session of this.sessions.values()) if (session.originKey === key) return;
    const origin = this.origins.get(key);
    if (!origin) return;
    this.origins.delete(key);
    this.opening.delete(key);
    void origin.then((server) => server.close()).catch(() => undefined);
  }

  private require(appId: string): AppSession {
    const session = this.sessions.get(appId);
    if (!session) throw new AppError('NotFound', 'That app is closed (or was never opened here)');
    return session;
  }
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}
