import { InvalidArgumentError, Option } from 'commander';
import { MAX_TIMEOUT_MS } from '../../shared/inputLimits';
import type { CliIo } from './CliContext';

// The parsers of every option value the CLI takes. They run while commander parses argv, before
// any action (no data dir opened, no server started, no call made): a bad value ends the command
// with commander's one line, `error: option '--timeout <ms>' argument 'abc' is invalid. <why>`,
// and exit code 2. Each "why" says what is accepted, with an example.

const MAX_TIMEOUT_SECONDS = MAX_TIMEOUT_MS / 1_000;

const WHOLE_NUMBER = /^\d+$/;

/** A whole number from `min` to `max`, written in digits (no `1e3`, `0x10`, `5.5`, signs or units). */
export function integerIn(min: number, max: number, unit = ''): (value: string) => number {
  const range = `a whole number${unit ? ` of ${unit}` : ''} from ${min} to ${max}`;
  return (value) => {
    const text = value.trim();
    const n = Number(text);
    if (!WHOLE_NUMBER.test(text) || !Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`It must be ${range}.`);
    return n;
  };
}

/** A whole number from 1 up (`--limit`): how many of something. */
export function positiveInteger(value: string): number {
  const text = value.trim();
  const n = Number(text);
  if (!WHOLE_NUMBER.test(text) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('It must be a positive whole number, e.g. 10.');
  return n;
}

/** `--timeout <ms>` of a call: a positive whole number of milliseconds, at most a day. */
export const parseTimeoutMs = (value: string): number => {
  const text = value.trim();
  const n = Number(text);
  if (!WHOLE_NUMBER.test(text) || !(n > 0)) throw new InvalidArgumentError('It must be a positive whole number of milliseconds, e.g. 30000 for 30 s.');
  if (n > MAX_TIMEOUT_MS) throw new InvalidArgumentError(`It must be at most ${MAX_TIMEOUT_MS} milliseconds (a day).`);
  return n;
};

/** A positive whole number of seconds, at most a day (`kube reconcile --timeout`, `mcp login --timeout`). */
export const parseTimeoutSeconds = (value: string): number => {
  const text = value.trim();
  const n = Number(text);
  if (!WHOLE_NUMBER.test(text) || !(n > 0)) throw new InvalidArgumentError('It must be a positive whole number of seconds, e.g. 300.');
  if (n > MAX_TIMEOUT_SECONDS) throw new InvalidArgumentError(`It must be at most ${MAX_TIMEOUT_SECONDS} seconds (a day).`);
  return n;
};

/** The `--timeout <ms>` option every command that makes a call has. */
export function timeoutMsOption(description = 'per-request timeout in milliseconds (default: the tool\'s effective timeout)'): Option {
  return new Option('--timeout <ms>', description).argParser(parseTimeoutMs);
}

/** An http:// or https:// URL with a host. */
/** A folder path; one that starts with "-" is an option that ended up in the folder's place (`--data-dir --help`). */
export function parseFolder(value: string): string {
  if (value === '' || value.startsWith('-')) throw new InvalidArgumentError('It must be a folder path; put the option that follows after the path.');
  return value;
}

export function parseHttpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InvalidArgumentError('It must be an http:// or https:// URL, e.g. http://127.0.0.1:3001/mcp.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError(`It must be an http:// or https:// URL, not ${url.protocol.slice(0, 20)}.`);
  if (!url.hostname) throw new InvalidArgumentError('The URL has no host.');
  return value.trim();
}

/** A size in MiB, more than 0 and at most `max` (fractions allowed: 0.5). */
export function mebibytesUpTo(max: number): (value: string) => number {
  return (value) => {
    const text = value.trim();
    const mib = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text) || !(mib > 0) || mib > max) throw new InvalidArgumentError(`It must be a number of MiB greater than 0 and at most ${max}, e.g. 8.`);
    return mib;
  };
}

/** A TCP port, 0 (any free one) to 65535. */
export const parsePort = integerIn(0, 65_535);

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `15m`, `1h`, `24h`, `7d` → milliseconds (`--since`). */
export function parseAge(value: string): number {
  const match = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(value.trim());
  if (!match || !(Number(match[1]) > 0)) throw new InvalidArgumentError('Use a positive number and a unit: 30s, 15m, 1h, 7d or 2w.');
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** `15s`, `1500ms`, `2m` or plain seconds → milliseconds (the operator's lease timings). */
export function parseDuration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('Use a duration such as 15s, 1500ms or 2m.');
  const ms = Number(match[1]) * (match[2] === 'ms' ? 1 : match[2] === 'm' ? 60_000 : 1_000);
  if (!(ms > 0)) throw new InvalidArgumentError('The duration must be more than zero.');
  return ms;
}

/**
 * `HOST:PORT` (`[::1]:PORT` for IPv6). An empty host (`:8080`) is loopback, never every interface:
 * binding all of them must be written out (`0.0.0.0:8080`, as the operator's pod manifests do).
 */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new InvalidArgumentError('Use HOST:PORT, e.g. 127.0.0.1:8080 or 0.0.0.0:8080.');
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

/** A repeatable option of enumerated values (`--status ok --status error`), each checked as it is given. */
export function collectChoice<T extends string>(choices: readonly T[]): (value: string, previous?: T[]) => T[] {
  return (value, previous = []) => {
    if (!(choices as readonly string[]).includes(value)) throw new InvalidArgumentError(`Allowed choices are ${choices.join(', ')}.`);
    return [...previous, value as T];
  };
}

/** `K=V` (repeatable): checked as it is given, collected in order. */
export function collectKeyValue(value: string, previous: string[] = []): string[] {
  if (value.indexOf('=') <= 0) throw new InvalidArgumentError('Use KEY=VALUE, e.g. Authorization=Bearer… or LOG_LEVEL=debug.');
  return [...previous, value];
}

/**
 * A `--limit` that a service caps: above the cap, the cap is used and stderr says so, rather than
 * quietly returning fewer rows than asked for.
 */
export function clampLimit(io: CliIo, requested: number, max: number, what: string, unit = 'rows'): number {
  if (requested <= max) return requested;
  const most = max.toLocaleString('en-US');
  io.stderr(`--limit ${requested}: ${what} shows at most ${most} ${unit} at once; showing ${most}.\n`);
  return max;
}
