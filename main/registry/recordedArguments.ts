import { SECRET_PLACEHOLDER } from '../../shared/secrets';
import { jsonStringPrefix } from './jsonStringPrefix';

/** Default cap on the arguments JSON kept in an invocation record. */
export const MAX_RECORDED_ARGUMENTS_BYTES = 64 * 1024;

export const MASK = SECRET_PLACEHOLDER;

/**
 * Keys whose values are credentials, compared case-insensitively with `-`/`_` removed. `token` only
 * as a suffix, so `accessToken` and `x-auth-token` are masked but `max_tokens` is not.
 */
const SECRET_PARTS = ['secret', 'password', 'passwd', 'passphrase', 'apikey', 'authorization', 'credential', 'privatekey', 'accesskey', 'cookie', 'sessionid', 'clientsecret'];
/** A cheap pre-check on the serialized JSON, so ordinary arguments are serialized only once. */
export const MAYBE_SECRET = /(?<!progress|page)token"|secret|passw|passphrase|api[-_]?key|authori[sz]ation|credential|private[-_]?key|access[-_]?key|cookie|session[-_]?id|bearer /i;

/** Token-named keys that carry no credential: MCP progress tokens and pagination tokens. */
const NOT_SECRET = new Set(['progresstoken', 'pagetoken', 'nextpagetoken']);

export function isSecretKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[-_]/g, '');
  if (NOT_SECRET.has(normalized)) return false;
  return normalized.endsWith('token') || SECRET_PARTS.some((part) => normalized.includes(part));
}

export interface RecordedArguments {
  json: string;
  /** UTF-8 bytes of the arguments as sent, before masking. */
  requestBytes: number;
}

/**
 * The arguments as history keeps them: secret-looking keys and `Bearer …` strings masked, and the
 * JSON capped at `maxBytes`. A capped record is still valid JSON — an object saying so, with the
 * original size and a prefix — so readers never have to handle a cut-off document.
 */
export function recordedArguments(
  args: Record<string, unknown>,
  maxBytes: number = MAX_RECORDED_ARGUMENTS_BYTES,
  /** Where a cut at `end` may fall without splitting a secret (masking afterwards finds whole values only). */
  safeEnd?: (text: string, end: number, maskValues?: readonly string[]) => number,
  /** Values of this call that must not be split either (passed on to `safeEnd`). */
  maskValues?: readonly string[],
): RecordedArguments {
  const raw = JSON.stringify(args);
  const requestBytes = Buffer.byteLength(raw, 'utf8');
  const json = MAYBE_SECRET.test(raw) ? maskSecretFields(args) : raw;
  if (json.length <= maxBytes / 3 || Buffer.byteLength(json, 'utf8') <= maxBytes) return { json, requestBytes };
  const envelope = { _truncated: true, originalBytes: requestBytes, preview: '' };
  const prefix = jsonStringPrefix(json, maxBytes - Buffer.byteLength(JSON.stringify(envelope), 'utf8'));
  const preview = safeEnd ? prefix.slice(0, safeEnd(json, prefix.length, maskValues)) : prefix;
  return { json: JSON.stringify({ ...envelope, preview }), requestBytes };
}

/** JSON of `value` with credential-named fields and `Bearer …` strings masked, at any depth. */
export function maskSecretFields(value: unknown): string {
  return JSON.stringify(value, maskField) ?? '';
}

function maskField(key: string, value: unknown): unknown {
  if (key !== '' && isSecretKey(key)) return MASK;
  if (typeof value === 'string' && /^bearer\s+\S/i.test(value)) return `Bearer ${MASK}`;
  return value;
}
