/**
 * Deep equality of an apply configuration with what the server holds: empty lists, empty maps and
 * nulls count as absent (the server drops them), and resource quantities compare by value
 * ("0.5" equals "500m": the server stores the canonical form).
 */
export function semanticEqual(a: unknown, b: unknown, path: readonly string[] = []): boolean {
  a = normalizeEmpty(a);
  b = normalizeEmpty(b);
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => semanticEqual(item, b[i], path));
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
    for (const key of keys) {
      if (!semanticEqual(ra[key], rb[key], [...path, key])) return false;
    }
    return true;
  }
  if (isQuantityPath(path) && (typeof a === 'string' || typeof a === 'number') && (typeof b === 'string' || typeof b === 'number')) {
    const qa = parseQuantity(a);
    const qb = parseQuantity(b);
    return qa !== undefined && qb !== undefined && Math.abs(qa - qb) <= 1e-12 * Math.max(1, Math.abs(qa));
  }
  return false;
}

function normalizeEmpty(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value) && value.length === 0) return undefined;
  if (typeof value === 'object' && !Array.isArray(value) && Object.values(value as object).every((v) => normalizeEmpty(v) === undefined)) return undefined;
  return value;
}

function isQuantityPath(path: readonly string[]): boolean {
  const n = path.length;
  return n >= 3 && path[n - 3] === 'resources' && (path[n - 2] === 'limits' || path[n - 2] === 'requests');
}

const SUFFIX: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A Kubernetes resource quantity as a number, or undefined when it is not one. */
export function parseQuantity(value: string | number): number | undefined {
  if (typeof value === 'number') return value;
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|([a-zA-Z]{0,2}))$/.exec(value.trim());
  if (!m) return undefined;
  if (m[2]) return Number(m[1] + m[2]);
  const factor = SUFFIX[m[3] ?? ''];
  return factor === undefined ? undefined : Number(m[1]) * factor;
}
