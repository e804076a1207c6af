/** Strings at least this long are measured, not serialized (a result's text can be tens of MB). */
const MEASURE_FROM = 64 * 1024;

/**
 * UTF-8 bytes of `JSON.stringify(value)`, without building the text of its large strings: a
 * 50 MB tool result is measured in one pass instead of being copied into another 50 MB string.
 */
export function jsonByteLength(value: unknown): number {
  let extra = 0;
  const text = JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner === 'string' && inner.length >= MEASURE_FROM) {
      extra += jsonStringByteLength(inner) - 2;
      return '';
    }
    return inner;
  });
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8') + extra;
}

/** UTF-8 bytes of a string serialized as JSON, quotes included (escapes as JSON.stringify writes them). */
export function jsonStringByteLength(text: string): number {
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x0c || code === 0x0a || code === 0x0d || code === 0x09) bytes += 2;
      else bytes += code < 0x20 ? 6 : 1;
    } else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) bytes += 6; // a lone surrogate is written as \uXXXX
    else bytes += 3;
  }
  return bytes;
}

/** Whether a tool result holds a string long enough to be worth measuring rather than serializing. */
export function hasLargeString(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.length >= MEASURE_FROM;
  if (!value || typeof value !== 'object' || depth > 4) return false;
  // Index and key loops rather than Object.values: this runs on every result, and most are small.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (hasLargeString(value[i], depth + 1)) return true;
    return false;
  }
  for (const key in value) if (hasLargeString((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}
