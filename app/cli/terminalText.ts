/**
 * Control characters (C0 but tab, DEL, C1) and bidirectional overrides: from a server or a file,
 * they could move the cursor, rewrite earlier lines, set the window title or reorder what the
 * operator reads.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\u001b': '\\e' };

/**
 * Text from servers and files as it may reach a terminal: every unsafe character written out as
 * an escape (`\n`, `\e`, `\u{202e}`), and at most `maxChars` characters (an ellipsis says so).
 */
export function safeForTerminal(text: string, maxChars = Number.POSITIVE_INFINITY): string {
  const cut = text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
  return cut.replace(UNSAFE, (char) => NAMED[char] ?? `\\u{${char.codePointAt(0)!.toString(16)}}`);
}

/** A short, safe quote of untrusted output for a one-line error message. */
export function excerpt(text: string, maxChars = 200): string {
  return safeForTerminal(text, maxChars);
}
