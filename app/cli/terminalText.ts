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

// The same characters but the line feed (and tab): for text whose lines are its shape.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_KEEPING_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Multi-line text from servers and files (a tool's result, an error listing several problems) as
 * it may reach a terminal: line feeds kept, every other unsafe character escaped as in
 * safeForTerminal, at most `maxChars` characters.
 */
export function safeLines(text: string, maxChars = Number.POSITIVE_INFINITY): string {
  // A CRLF line end is a line end; a lone carriage return could overwrite what the line said.
  const lines = text.replace(/\r\n/g, '\n');
  const cut = lines.length > maxChars ? `${lines.slice(0, maxChars)}…` : lines;
  return cut.replace(UNSAFE_KEEPING_LINES, (char) => NAMED[char] ?? `\\u{${char.codePointAt(0)!.toString(16)}}`);
}

// JSON.stringify escapes C0 controls itself; C1 controls and bidirectional overrides it leaves raw.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** JSON for a terminal (`--json`): the same value, with every character that could act on the terminal written as a \u escape. */
export function jsonForTerminal(value: unknown, indent: number = 2): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(UNSAFE_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** An error message as the CLI prints it: lines kept, everything else safe, at most a screenful. */
export function terminalMessage(message: string): string {
  return safeLines(message, 2_000);
}
