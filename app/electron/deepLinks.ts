import type { DesktopEvent } from '../../shared/desktop';

export const DEEP_LINK_SCHEME = 'tooldeck';

type Navigate = Extract<DesktopEvent, { kind: 'navigate' }>;

/** `tooldeck://<kind>/<name>`: which section shows it and under which parameter (the renderer's own routes). */
const TARGETS: Record<string, { section: string; param: string }> = {
  server: { section: 'servers', param: 'server' },
  tool: { section: 'tools', param: 'tool' },
  agent: { section: 'agents', param: 'agent' },
};

/**
 * Reads a `tooldeck://server/<name>`, `tooldeck://tool/<registry name>` or `tooldeck://agent/<name>`
 * link. Any web page can open such a link, so it only ever selects something in a view: it never
 * connects, calls or changes anything, and anything else is refused with the reason.
 */
export function parseDeepLink(url: string): Navigate | { error: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: 'not a URL' };
  }
  if (parsed.protocol !== `${DEEP_LINK_SCHEME}:`) return { error: `not a ${DEEP_LINK_SCHEME}:// link` };
  const target = TARGETS[parsed.hostname];
  if (!target) return { error: `unknown link kind "${parsed.hostname}" (use ${Object.keys(TARGETS).join(', ')})` };
  let name: string;
  try {
    // The raw path, not `parsed.pathname`: URL parsing resolves "." and ".." segments (also
    // percent-encoded), which would turn a server named "." into no name at all.
    const rawPath = /^[^:]+:\/\/[^/?#]*([^?#]*)/.exec(url.trim())?.[1] ?? '';
    name = decodeURIComponent(rawPath.replace(/^\/+/, '').replace(/\/+$/, ''));
  } catch {
    return { error: 'the name is not valid percent-encoding' };
  }
  if (!name) return { error: `a ${parsed.hostname} link needs a name: ${DEEP_LINK_SCHEME}://${parsed.hostname}/<name>` };
  // eslint-disable-next-line no-control-regex
  if (name.length > 256 || /[\u0000-\u001f\u007f]/.test(name)) return { error: 'the name is too long or holds control characters' };
  return { kind: 'navigate', section: target.section, params: { [target.param]: name } };
}

/** The deep links in a command line (Windows and Linux hand the URL to the new process as an argument). */
export function deepLinksIn(argv: readonly string[]): string[] {
  return argv.filter((arg) => arg.toLowerCase().startsWith(`${DEEP_LINK_SCHEME}://`));
}

/** The renderer route for a navigation: the app loads it directly when the link arrives before the window does. */
export function routeOf(navigate: Navigate): string {
  const query = new URLSearchParams(navigate.params).toString();
  return `/${navigate.section}${query ? `?${query}` : ''}`;
}
