import type { AppResourceMeta } from '../../shared/apps';

/** CSP source expressions an app may declare: an http(s)/ws(s) origin, a `*.` wildcard host allowed, no path. */
const SOURCE = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:(\d{1,5}|\*))?\/?$/i;
const LOOPBACK = /^[a-z]+:\/\/(localhost|127(\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)(:|\/|$)/i;

export interface AppCsp {
  policy: string;
  warnings: string[];
}

function checked(list: string[] | undefined, what: string, warnings: string[]): string[] {
  const out: string[] = [];
  for (const raw of list ?? []) {
    const value = raw.trim().replace(/\/$/, '');
    if (!SOURCE.test(value)) warnings.push(`${what}: "${raw}" is not an origin (https://host[:port], *.host allowed); ignored`);
    else if (LOOPBACK.test(value)) warnings.push(`${what}: "${raw}" is a loopback origin, which would reach Tooldeck itself; ignored`);
    else out.push(value);
  }
  return out;
}

/**
 * The Content-Security-Policy an app's HTML is served with, from its `_meta.ui.csp`: the bundle's
 * own inline scripts and styles, static resources only from `resourceDomains`, network requests
 * only to `connectDomains`, frames only from `frameDomains`; nothing else. A declared value that
 * is not an origin (a keyword, a path, an injected `;`) or that points at a loopback address is
 * dropped with a warning. Violations are reported to `reportUri`.
 */
export function buildAppCsp(meta: AppResourceMeta, options: { hostOrigin: string; reportUri: string }): AppCsp {
  const warnings: string[] = [];
  const csp = meta.csp ?? {};
  const resources = checked(csp.resourceDomains, 'resourceDomains', warnings);
  const connect = checked(csp.connectDomains, 'connectDomains', warnings);
  const frames = checked(csp.frameDomains, 'frameDomains', warnings);
  const bases = checked(csp.baseUriDomains, 'baseUriDomains', warnings);
  const list = (sources: string[]) => (sources.length ? sources.join(' ') : "'none'");
  const withResources = (...base: string[]) => [...base, ...resources].join(' ');
  const policy = [
    "default-src 'none'",
    `script-src ${withResources("'self'", "'unsafe-inline'")}`,
    `style-src ${withResources("'self'", "'unsafe-inline'")}`,
    `img-src ${withResources("'self'", 'data:', 'blob:')}`,
    `font-src ${withResources("'self'", 'data:')}`,
    `media-src ${withResources("'self'", 'data:', 'blob:')}`,
    `connect-src ${list(connect)}`,
    `frame-src ${list(frames)}`,
    `base-uri ${list(bases)}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "form-action 'none'",
    `frame-ancestors ${options.hostOrigin}`,
    `report-uri ${options.reportUri}`,
  ].join('; ');
  return { policy, warnings };
}

const PERMISSIONS = [
  ['camera', 'camera'],
  ['microphone', 'microphone'],
  ['geolocation', 'geolocation'],
  ['clipboardWrite', 'clipboard-write'],
] as const;

/** The iframe `allow` attribute for the permissions the resource asked for. */
export function allowAttribute(meta: AppResourceMeta): string {
  return PERMISSIONS.filter(([key]) => meta.permissions?.[key] !== undefined)
    .map(([, feature]) => feature)
    .join('; ');
}

/** `Permissions-Policy` for the served document: the asked-for features for itself, none otherwise. */
export function permissionsPolicy(meta: AppResourceMeta): string {
  return PERMISSIONS.map(([key, feature]) => `${feature}=${meta.permissions?.[key] !== undefined ? '(self)' : '()'}`).join(', ');
}
