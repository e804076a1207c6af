/** "Nov 22, 17:06:53": a timestamp compact enough for a table column. */
export function formatStamp(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}

/** Task and context ids are UUIDs: their first characters tell them apart in a list. */
export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/** Monospace for what is typed into an input, while its label and description keep the UI font. */
export const MONO_INPUT = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };
