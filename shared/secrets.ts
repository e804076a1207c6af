/**
 * What a stored secret looks like wherever a config is shown or written: in a saved server's
 * header, environment variable, URL password or URL query value. Sending it back unchanged in an
 * edit means "keep the stored value".
 */
export const SECRET_PLACEHOLDER = '***';

/**
 * Names of headers, environment variables and URL query parameters whose values are credentials.
 * Broad on purpose — a sealed value that was not secret costs nothing, a leaked one costs a key —
 * so `X-Api-Key`, `GITHUB_TOKEN`, `Cookie`, `Proxy-Authorization`, `DB_PASSWORD`, `session_id`
 * and `OPENAI_API_KEY` all match. (Tool *argument* keys use a narrower rule, so `max_tokens` stays
 * readable in history: see main/registry/recordedArguments.ts.)
 */
const CREDENTIAL_NAME = /token|key|secret|auth|session|passw|pwd|credential|cookie|signature/i;

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

/**
 * Values that are credentials whatever their name: a URL with a password, a bearer header value,
 * a JWT, and the key formats of common providers. Deliberately no entropy guess: that would seal
 * hashes and ids and make configs unreadable.
 */
const CREDENTIAL_VALUE = [
  /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i,
  /^(bearer|basic)\s+\S{8,}$/i,
  /^eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*$/,
  /^(sk|pk|rk)-[\w-]{16,}$/,
  /^(ghp|gho|ghu|ghs|ghr|github_pat)_\w{20,}$/,
  /^xox[abposr]-[\w-]{10,}$/,
  /^(AKIA|ASIA)[0-9A-Z]{16}$/,
  /^glpat-[\w-]{20,}$/,
  /^AIza[\w-]{35}$/,
];

export function looksLikeCredential(value: string): boolean {
  return CREDENTIAL_VALUE.some((pattern) => pattern.test(value.trim()));
}

/** A header, environment variable or query parameter whose value must be sealed. */
export function isSecretSetting(name: string, value: string): boolean {
  return value !== '' && (value === SECRET_PLACEHOLDER || isCredentialName(name) || looksLikeCredential(value));
}

/** Shell-style quoting for display: what a user would paste into a terminal to run the same thing. */
export function shellQuote(word: string): string {
  if (word !== '' && /^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
