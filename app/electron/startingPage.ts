/**
 * What the window shows from the moment it opens until the core is up (opening the history
 * database, reading the workspace, asking the login shell for PATH): the app's own colours and a
 * line saying what is happening, so a slow start never looks like a hung one. Served by the app://
 * protocol with the app's CSP (inline styles allowed, no script).
 */
export function startingPageHtml(dataDir: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Tooldeck</title>
<style>
  html, body { height: 100%; margin: 0; background: #1a1b1e; color: #c1c2c5; font: 14px system-ui, -apple-system, 'Segoe UI', sans-serif; }
  main { height: 100%; display: flex; flex-direction: column; align-items: center; justify-content: center; gap: 16px; }
  .spinner { width: 28px; height: 28px; border: 3px solid #373a40; border-top-color: #5c7cfa; border-radius: 50%; animation: spin 0.9s linear infinite; }
  @keyframes spin { to { transform: rotate(360deg); } }
  h1 { font-size: 18px; font-weight: 600; margin: 0; color: #e9ecef; }
  p { margin: 0; color: #909296; }
  code { font-size: 12px; color: #909296; }
</style></head>
<body><main role="status" aria-live="polite">
  <div class="spinner" aria-hidden="true"></div>
  <h1>Starting Tooldeck…</h1>
  <p>Opening the data folder and connecting saved servers</p>
  <code>${escapeHtml(dataDir)}</code>
</main></body>
</html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
