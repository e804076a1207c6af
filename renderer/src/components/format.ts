/** 512 B, 1.2 KB, 3.4 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** 85 ms, 1.24 s, 2 min 05 s. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1000);
  return `${minutes} min ${String(seconds).padStart(2, '0')} s`;
}

/** The decoded size of base64 data. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** Saves base64 data as a file through a short-lived blob URL (data: URLs are not navigable). */
export function downloadBase64(data: string, mimeType: string, fileName: string): void {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: mimeType }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * 14:03:07.042: a local wall-clock time to the millisecond, precise enough to order protocol events.
 * `locale` (the default, what the MCP views show) writes hours, minutes and seconds as the locale
 * writes a 24-hour time; `fixed` always writes HH:MM:SS, whatever the locale, which the A2A views
 * keep because they cut the time to its first eight characters (the conversation's HH:MM:SS).
 */
export function formatClock(at: number, digits: 'locale' | 'fixed' = 'locale'): string {
  const date = new Date(at);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const seconds = digits === 'fixed' ? `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` : date.toLocaleTimeString(undefined, { hour12: false });
  return `${seconds}.${pad(date.getMilliseconds(), 3)}`;
}
