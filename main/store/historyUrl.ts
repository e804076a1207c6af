/**
 * A PostgreSQL history URL carries a password. Everything Tooldeck says about the database (logs,
 * `info`, errors, the process title) goes through these functions, so the password never does.
 */

const MASK = '***';

/** `postgres://user:secret@host/db` anywhere in text, and `password=…` in a query or key-value string. */
// Greedy to the last `@` of the authority: an unencoded `@` in a password is the password's.
const URL_PASSWORD = /\b(postgres(?:ql)?:\/\/[^\s:/@]*:)[^\s/]*@/gi;
const PARAM_PASSWORD = /\b(password=)[^\s&;]*/gi;

export const isPostgresUrl = (text: string) => /^postgres(?:ql)?:\/\//i.test(text.trim());

/** The password in a history URL, decoded as the driver sees it, and its `password=` parameter if any. */
export function urlPasswords(url: string): string[] {
  const found: string[] = [];
  try {
    const parsed = new URL(url);
    if (parsed.password) found.push(parsed.password, decodeURIComponent(parsed.password));
    const param = parsed.searchParams.get('password');
    if (param) found.push(param, encodeURIComponent(param));
  } catch {
    // Not a URL: the patterns below still mask what looks like a password.
  }
  return [...new Set(found)].filter((value) => value.length > 0);
}

/**
 * Text with every password of `urls` masked, and any PostgreSQL URL or `password=` in it masked too
 * (an error may quote a URL the caller never saw whole).
 */
export function redactHistoryText(text: string, ...urls: string[]): string {
  let out = text.replace(URL_PASSWORD, `$1${MASK}@`).replace(PARAM_PASSWORD, `$1${MASK}`);
  for (const secret of urls.flatMap(urlPasswords).sort((a, b) => b.length - a.length)) {
    if (secret.length >= 2) out = out.split(secret).join(MASK);
  }
  return out;
}

/** The URL to show: its password (and a `password=` parameter) masked, everything else as given. */
export function displayHistoryUrl(url: string): string {
  return redactHistoryText(url, url);
}

/** `serve --history-url postgres://u:p@h/db`'s argv with the password masked: what `ps` shows once set as the title. */
export function redactedArgv(argv: readonly string[]): string[] {
  return argv.map((arg) => redactHistoryText(arg, arg, arg.slice(arg.indexOf('=') + 1)));
}
