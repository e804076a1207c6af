// JSON.stringify escapes C0 controls itself; C1 controls, bidirectional overrides and zero-width
// characters it leaves raw.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/**
 * JSON text (from JSON.stringify) for a terminal or a log a terminal will show: every character
 * that could act on the terminal or hide in it written as a `\uXXXX` escape. Still JSON, with the
 * same value once parsed.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
