/**
 * The longest prefix of `text`, ending on a code point boundary, whose JSON string escaping takes at
 * most `budget` UTF-8 bytes (quotes not counted). Costs mirror JSON.stringify: `"` and `\` and the
 * short control escapes take 2, other controls and lone surrogates 6 (`\uXXXX`), the rest their
 * UTF-8 length.
 */
export function jsonStringPrefix(text: string, budget: number): string {
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const unit = text.charCodeAt(i);
    let cost = 3;
    let width = 1;
    if (unit < 0x20) cost = unit === 8 || unit === 9 || unit === 10 || unit === 12 || unit === 13 ? 2 : 6;
    else if (unit === 0x22 || unit === 0x5c) cost = 2;
    else if (unit < 0x80) cost = 1;
    else if (unit < 0x800) cost = 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        cost = 4;
        width = 2;
      } else cost = 6;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) cost = 6;
    if (used + cost > budget) break;
    used += cost;
    i += width;
  }
  return text.slice(0, i);
}
