import { isSecretKey } from '../registry/recordedArguments';

export { isSecretKey };
export const MASK = '••••••';

/** Deep copy with secret-looking keys masked and known secret values replaced wherever they appear. */
export function maskSecrets(value: unknown, knownSecrets: readonly string[] = []): unknown {
  const secrets = knownSecrets.filter((s) => s.length >= 4);
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') return secrets.reduce((text, secret) => text.split(secret).join(MASK), v);
    if (Array.isArray(v)) return v.map(visit);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, isSecretKey(k) && inner !== undefined && inner !== '' ? MASK : visit(inner)]));
    }
    return v;
  };
  return visit(value);
}

export function maskText(text: string, knownSecrets: readonly string[] = []): string {
  return knownSecrets.filter((s) => s.length >= 4).reduce((t, secret) => t.split(secret).join(MASK), text);
}
