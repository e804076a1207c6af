import { z } from 'zod';
import { ServerName } from './mcp';

/** MCP Apps (SEP-1865): a tool's `_meta.ui.resourceUri` names a `ui://` resource with the app's HTML. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The app's `_meta.ui` on its resource: what it may reach, what it may use, where it wants to live. */
export const AppResourceMeta = z
  .object({
    csp: z
      .object({
        connectDomains: z.array(z.string()).optional(),
        resourceDomains: z.array(z.string()).optional(),
        frameDomains: z.array(z.string()).optional(),
        baseUriDomains: z.array(z.string()).optional(),
      })
      .loose()
      .optional(),
    permissions: z
      .object({ camera: z.object({}).loose().optional(), microphone: z.object({}).loose().optional(), geolocation: z.object({}).loose().optional(), clipboardWrite: z.object({}).loose().optional() })
      .loose()
      .optional(),
    domain: z.string().optional(),
    prefersBorder: z.boolean().optional(),
  })
  .loose();
export type AppResourceMeta = z.infer<typeof AppResourceMeta>;

/** The console page that will frame the app: its CSP `frame-ancestors`. */
export const HostOrigin = z.string().regex(/^(https?:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}|app:\/\/tooldeck)$/, 'The console origin must be a loopback http origin or app://tooldeck');

export const OpenAppInput = z.object({
  server: ServerName,
  /** The tool whose call the app shows (its `_meta.ui.resourceUri` is read from the registry, not trusted from here). */
  tool: z.string().min(1),
  hostOrigin: HostOrigin,
});
export type OpenAppInput = z.infer<typeof OpenAppInput>;

/** An app ready to frame: where it is served, and how it is confined. */
export const OpenedApp = z.object({
  appId: z.string(),
  /** The app's own loopback origin, never the console's. */
  src: z.string(),
  origin: z.string(),
  /** The iframe's `sandbox` attribute. */
  sandbox: z.string(),
  /** The iframe's `allow` attribute (permissions the resource asked for). */
  allow: z.string(),
  /** The Content-Security-Policy the app's HTML is served with. */
  csp: z.string(),
  meta: AppResourceMeta,
  resourceUri: z.string(),
  /** What was refused from the declaration (a domain that is not an origin, the console's own origin…). */
  warnings: z.array(z.string()),
});
export type OpenedApp = z.infer<typeof OpenedApp>;

export const AppCallToolInput = z.object({
  appId: z.string(),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
  confirmed: z.boolean().optional(),
});
export type AppCallToolInput = z.infer<typeof AppCallToolInput>;

/** A request the browser blocked because the app's CSP does not allow it. */
export const CspViolation = z.object({
  at: z.number(),
  /** e.g. connect-src */
  directive: z.string(),
  blockedUri: z.string(),
  sourceFile: z.string().optional(),
});
export type CspViolation = z.infer<typeof CspViolation>;

export const AppActivity = z.object({ appId: z.string(), violations: z.array(CspViolation) });
export type AppActivity = z.infer<typeof AppActivity>;
