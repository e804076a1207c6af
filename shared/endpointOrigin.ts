/**
 * The one home for "may a credential saved for this endpoint go to that one": a secret (bearer token,
 * gRPC metadata, A2A credentials) is bound to the origin the user gave it for — scheme, host and port —
 * and follows neither a name nor what a remote declares.
 */

/** Schemes that encrypt, each with the plain scheme of the same family (what a downgrade looks like). */
const SECURE_TO_PLAIN: Record<string, string> = { 'https:': 'http:', 'grpcs:': 'grpc:', 'wss:': 'ws:' };
const PLAIN_TO_SECURE = Object.fromEntries(Object.entries(SECURE_TO_PLAIN).map(([secure, plain]) => [plain, secure]));
const DEFAULT_PORTS: Record<string, string> = { 'https:': '443', 'http:': '80', 'wss:': '443', 'ws:': '80' };

/** An endpoint's credential origin: scheme, lowercased host and explicit port. */
export interface CredentialOrigin {
  scheme: string;
  host: string;
  port: string;
}

/**
 * The credential origin of a URL (`https://host/path` → `https://host:443`), or undefined when it is
 * not an absolute URL with a host.
 */
export function credentialOrigin(url: string): CredentialOrigin | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!parsed.hostname) return undefined;
  const port = parsed.port || DEFAULT_PORTS[parsed.protocol];
  if (!port) return undefined;
  return { scheme: parsed.protocol, host: parsed.hostname.toLowerCase(), port };
}

/** `scheme://host:port`, for messages and for saving what a credential is bound to. */
export function credentialOriginText(url: string): string | undefined {
  const origin = credentialOrigin(url);
  return origin && `${origin.scheme}//${origin.host}:${origin.port}`;
}

/** A gRPC `host:port` dialled with or without TLS as a URL (`grpcs://host:port` / `grpc://host:port`). */
export function grpcEndpointUrl(address: string, tls: boolean): string {
  return `${tls ? 'grpcs' : 'grpc'}://${address.trim()}`;
}

/**
 * Whether a credential saved for `savedFor` may be sent to `target`: the same host and port, and the
 * same scheme — or its encrypted form (http → https at the same host:port is fine, and so is
 * http://host → https://host on the default ports; https → http is a downgrade and is not). Anything
 * that is not an absolute URL is not the same origin.
 */
export function credentialsMayGoTo(savedFor: string, target: string): boolean {
  const saved = credentialOrigin(savedFor);
  const next = credentialOrigin(target);
  if (!saved || !next || saved.host !== next.host) return false;
  if (saved.port === next.port) return next.scheme === saved.scheme || next.scheme === PLAIN_TO_SECURE[saved.scheme];
  const upgradeOnDefaultPorts = next.scheme === PLAIN_TO_SECURE[saved.scheme] && saved.port === DEFAULT_PORTS[saved.scheme] && next.port === DEFAULT_PORTS[next.scheme];
  return upgradeOnDefaultPorts;
}

/** Why `target` may not receive a credential saved for `savedFor`, as the tail of a sentence ("… is …"). */
export function credentialOriginChange(savedFor: string, target: string): string {
  const saved = credentialOrigin(savedFor);
  const next = credentialOrigin(target);
  const savedText = credentialOriginText(savedFor) ?? savedFor;
  const nextText = credentialOriginText(target) ?? target;
  if (saved && next && saved.host === next.host && saved.port === next.port && SECURE_TO_PLAIN[saved.scheme] === next.scheme) {
    return `${nextText} is unencrypted where the credentials were saved for ${savedText}`;
  }
  return `${nextText} is not ${savedText}, where the credentials were saved`;
}
