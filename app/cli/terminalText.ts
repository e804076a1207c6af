import { revealedString } from '../../shared/revealText';
import { terminalSafeJson } from '../../shared/terminalSafeJson';
import type { CliIo } from './CliIo';

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

/**
 * A name from outside the operator's typing (a source or tool key of tooldeck.lock, a server's or
 * a tool's name) for one terminal line: every hidden or look-alike character spelled out as the
 * linter and the definition diff spell it (`⟦U+200B ZERO WIDTH SPACE⟧`), then made safe, so a name
 * can neither act on the terminal, break onto a line of its own, nor pass for another name.
 */
export function terminalName(text: string, maxChars = 200): string {
  return safeForTerminal(revealedString(text), maxChars);
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

/** JSON for a terminal (`--json`): the same value, with every character that could act on the terminal or hide in it written as a \u escape. */
export function jsonForTerminal(value: unknown, indent: number = 2): string {
  return terminalSafeJson(JSON.stringify(value, null, indent) ?? 'null');
}

/**
 * An error message as the CLI prints it: lines kept, everything else safe, at most a screenful.
 * Every line after the first is indented: a message quotes peers (a server's error, a cluster's
 * condition), and a line break in what they said must not start a line that passes for the CLI's own.
 */
export function terminalMessage(message: string): string {
  return safeLines(message.replace(/[\r\n]+$/, ''), 2_000).replace(/\n/g, '\n  ');
}

// What acts on a terminal, as in safeLines; a carriage return only when no line feed follows it.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ACTS_ON_TERMINAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;

/**
 * Every character that would act on a terminal written as a `\uXXXX` escape (a lone carriage
 * return as `\r`); line feeds and tabs kept. The CLI's last line of defence, applied to everything
 * it writes: what a command forgot to make safe still cannot move the cursor, erase a line, set the
 * title or open a hyperlink. `\uXXXX` reads back as the same character inside a JSON string and a
 * YAML double-quoted one, so machine-readable output stays what it was.
 */
export function escapeTerminalControls(text: string): string {
  return text.replace(ACTS_ON_TERMINAL, (char) => (char === '\r' ? '\\r' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/** The streams the CLI writes to, each passed through escapeTerminalControls. */
export function terminalSafeIo(io: CliIo): CliIo {
  // Everything else the host gave (the terminal questions are read from) passes through unchanged.
  return { ...io, stdout: (text) => io.stdout(escapeTerminalControls(text)), stderr: (text) => io.stderr(escapeTerminalControls(text)) };
}
