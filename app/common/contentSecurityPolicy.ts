/**
 * One CSP for both hosts (sent as a response header by the Electron protocol handler and by the
 * browser-mode server). Scripts only from the app itself; inline styles are allowed because
 * Mantine sets CSS variables through style attributes; workers come from the app's own files
 * (Monaco's language workers are bundled, never fetched from a CDN); frames only from the
 * loopback origins MCP Apps are served from.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  // MCP Apps are framed from loopback origins of their own (main/apps/AppOriginServer), never this one.
  'frame-src http://127.0.0.1:*',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
