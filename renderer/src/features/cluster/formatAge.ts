/** Kubernetes-style age of an RFC 3339 timestamp: 45s, 12m, 3h, 5d. */
export function formatAge(since: string | undefined, now = Date.now()): string {
  if (!since) return '-';
  const seconds = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (Number.isNaN(seconds)) return '-';
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 2 * 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 2 * 86400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}
