/** A deep copy with every string longer than `max` cut, saying how long it was. */
export function capStrings<T>(value: T, max: number): T {
  return visit(value, max) as T;
}

function visit(value: unknown, max: number): unknown {
  if (typeof value === 'string') return value.length > max ? `${value.slice(0, max)}… (${value.length} characters)` : value;
  if (Array.isArray(value)) return value.map((item) => visit(item, max));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v, max)]));
  return value;
}
