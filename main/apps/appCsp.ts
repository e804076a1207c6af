import type { AppResourceMeta } from '../../shared/apps';

/**
 * CSP source expressions an app may declare: an http(s)/ws(s) origin, a `*.` wildcard host allowed,
 * no path. (IPv6 literals are not in CSP's host-source grammar, so none is accepted.)
 */
const SOURCE = /^(https?|wss?):\/\/(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(?:\d{1,5}|\*))?$/i;

/** Suffixes reserved for, or by custom used for, names that resolve inside the local network only. */
const LOCAL_NETWORK_SUFFIXES = ['local', 'localdomain', 'internal', 'lan', 'home', 'corp', 'intranet', 'private', 'home.arpa'];

/**
 * Public wildcard DNS services whose names resolve to the address written into them
 * (`127.0.0.1.nip.io`, `127-0-0-1.sslip.io`) or always to loopback (`localtest.me`, `lvh.me`).
 */
const LOOPBACK_DNS_DOMAINS = ['nip.io', 'sslip.io', 'xip.io', 'traefik.me', 'localtest.me', 'lvh.me', 'vcap.me', 'lacolhost.com', 'localho.st', 'fuf.me'];

/** Cloud metadata endpoints outside 169.254.0.0/16 (Alibaba Cloud's, Azure's wire server). */
const METADATA_ADDRESSES = new Set(['100.100.100.200', '168.63.129.16']);

const LOOPBACK_REASON = 'is a loopback origin, which would reach Tooldeck itself';

const under = (name: string, domain: string) => name === domain || name.endsWith(`.${domain}`);

/** Why an IPv4 address (dotted, canonical) is refused, if it is. */
function refusedAddress(address: string): string | undefined {
  const [a, b] = address.split('.').map(Number) as [number, number];
  if (a === 127) return LOOPBACK_REASON;
  if (a === 0) return 'is an address of this machine (0.0.0.0/8), which would reach Tooldeck itself';
  if (a === 169 && b === 254) return 'is a link-local address (169.254.0.0/16), where cloud metadata services answer';
  if (METADATA_ADDRESSES.has(address)) return 'is a cloud metadata address';
  if (a >= 224) return 'is a multicast or reserved address';
  return undefined;
}

/**
 * Why a declared host is refused, if it is. Addresses are judged by what they are (the WHATWG URL
 * parser reads `2130706433`, `0x7f.1` and `127.1` as 127.0.0.1, so a non-canonical spelling is
 * refused outright); names by how they are written: `localhost` and its subdomains resolve to this
 * machine, and names that merely look local (a localhost label, a single label, a local-network
 * suffix, an embedded address, a wildcard DNS service) are refused too. A public name can still be pointed at any
 * address by its owner; that is answered where the request lands: the console and the app origins
 * accept only their own Host.
 */
export function refusedHost(host: string, wildcard: boolean): string | undefined {
  const name = host.toLowerCase();
  const labels = name.split('.');
  // A host whose last label is a number is an IPv4 address to the URL parser (or invalid).
  if (/^(0x[0-9a-f]*|\d+)$/.test(labels.at(-1)!)) {
    if (wildcard) return 'is a wildcard over address digits, which matches IP addresses';
    let address: string;
    try {
      address = new URL(`http://${name}`).hostname;
    } catch {
      return 'is not a valid IPv4 address';
    }
    return refusedAddress(address) ?? (address === name ? undefined : `is the address ${address} written in another form`);
  }
  if (under(name, 'localhost')) return LOOPBACK_REASON;
  if (labels.includes('localhost')) return 'has a localhost label, the form of names made to look local';
  const suffix = LOCAL_NETWORK_SUFFIXES.find((s) => under(name, s));
  if (suffix) return `is a local-network name (.${suffix})`;
  if (labels.length === 1) return wildcard ? 'is a wildcard over a whole top-level domain' : 'is a single-label name, which resolves on the local network';
  const dns = LOOPBACK_DNS_DOMAINS.find((d) => under(name, d));
  if (dns) return `is under ${dns}, whose names resolve to the address written into them or to loopback`;
  const embedsAddress = labels.some((label, i) => /^\d{1,3}(-\d{1,3}){3}$/.test(label) || labels.slice(i, i + 4).filter((l) => /^\d{1,3}$/.test(l)).length === 4);
  if (embedsAddress) return 'embeds an IP address, the form of wildcard DNS names that resolve to it';
  return undefined;
}

export interface AppCsp {
  policy: string;
  warnings: string[];
}

function checked(list: string[] | undefined, what: string, warnings: string[]): string[] {
  const out: string[] = [];
  for (const raw of list ?? []) {
    const value = raw.trim().replace(/\/$/, '');
    const source = SOURCE.exec(value);
    const refused = source && refusedHost(source[3]!, source[2] !== undefined);
    if (!source) warnings.push(`${what}: "${raw}" is not an origin (https://host[:port], *.host allowed); ignored`);
    else if (refused) warnings.push(`${what}: "${raw}" ${refused}; ignored`);
    else out.push(value);
  }
  return out;
}

/**
 * The Content-Security-Policy an app's HTML is served with, from its `_meta.ui.csp`: the bundle's
 * own inline scripts and styles, static resources only from `resourceDomains`, network requests
 * only to `connectDomains`, frames only from `frameDomains`; nothing else. A declared value that
 * is not an origin (a keyword, a path, an injected `;`) or whose host is refused (see refusedHost)
 * is dropped with a warning. Violations are reported to `reportUri`.
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
