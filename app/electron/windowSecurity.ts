import type { BrowserWindowConstructorOptions, PermissionCheckHandlerHandlerDetails } from 'electron';

/** The app's own origin: the renderer is served from a privileged custom scheme, never file://. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'tooldeck';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

export const MIN_WINDOW_SIZE = { width: 960, height: 600 };

export interface WindowPlacement {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

/** `devTools` only with the debug flag: in a release the page cannot open an inspector at all. */
export function mainWindowOptions(preloadPath: string, options: { devTools?: boolean; placement?: WindowPlacement; icon?: string } = {}): BrowserWindowConstructorOptions {
  const placement = options.placement ?? { width: 1400, height: 900 };
  return {
    ...placement,
    minWidth: MIN_WINDOW_SIZE.width,
    minHeight: MIN_WINDOW_SIZE.height,
    title: 'Tooldeck',
    show: false,
    backgroundColor: '#1a1b1e',
    ...(options.icon ? { icon: options.icon } : {}),
    webPreferences: {
      devTools: options.devTools ?? false,
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}

export function isAppUrl(url: string, appOrigin: string = APP_ORIGIN): boolean {
  try {
    // Custom schemes have an opaque origin ("null") in WHATWG URL, so compare scheme and host.
    const a = new URL(url);
    const b = new URL(appOrigin);
    return a.protocol === b.protocol && a.host === b.host;
  } catch {
    return false;
  }
}

/** will-navigate: the window only ever shows the app; anything else is stopped. */
export function shouldBlockNavigation(url: string, appOrigin: string = APP_ORIGIN): boolean {
  return !isAppUrl(url, appOrigin);
}

export type LinkDecision =
  /** Opened in the OS browser at once. */
  | { action: 'open'; url: string }
  /** A page on this machine (a local OAuth server, a server's docs): opened once the user confirms. */
  | { action: 'confirm'; url: string }
  /** Not opened; the window is told why. */
  | { action: 'block'; url: string; reason: string };

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * What a link the page opens (window.open, target=_blank, or a navigation away from the app) leads
 * to. New Electron windows are never made: https goes to the OS browser, http only to this machine
 * and after a confirmation, every other scheme (file:, javascript:, custom protocols) is refused.
 */
export function decideLink(url: string): LinkDecision {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { action: 'block', url, reason: 'not a valid URL' };
  }
  if (parsed.username || parsed.password) return { action: 'block', url, reason: 'links with credentials in them are not opened' };
  if (parsed.protocol === 'https:') return { action: 'open', url: parsed.toString() };
  if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)) return { action: 'confirm', url: parsed.toString() };
  if (parsed.protocol === 'http:') return { action: 'block', url, reason: 'plain http links are opened only for pages on this machine (localhost, 127.0.0.1)' };
  return { action: 'block', url, reason: `${parsed.protocol} links are not opened` };
}

/** The one permission the app uses: writing to the clipboard (copy buttons), from its own main frame only. */
const APP_PERMISSIONS = new Set(['clipboard-sanitized-write']);

/** A Permission Policy feature an MCP App may declare in `_meta.ui.permissions`. */
export type AppFrameFeature = 'camera' | 'microphone' | 'geolocation' | 'clipboard-write';

/**
 * Whether an MCP App frame (served from its own loopback origin, see main/apps) declared the
 * feature; the core's McpAppHost answers. Absent: app frames get nothing.
 */
export type AppFramePermits = (frameUrl: string, feature: AppFrameFeature) => boolean;

/** The features an Electron permission needs: camera/microphone for media (per requested type), etc. */
function featuresFor(permission: string, mediaTypes: readonly string[] | undefined): AppFrameFeature[] | undefined {
  if (permission === 'media') {
    const types = mediaTypes?.length ? mediaTypes : ['video', 'audio'];
    return types.map((t) => (t === 'video' ? 'camera' : 'microphone'));
  }
  if (permission === 'geolocation') return ['geolocation'];
  if (permission === 'clipboard-sanitized-write') return ['clipboard-write'];
  return undefined;
}

/** An MCP App frame inside the app window gets exactly what its resource declared. */
function appFrameGranted(permission: string, requestingUrl: string | undefined, mediaTypes: readonly string[] | undefined, permits: AppFramePermits | undefined): boolean {
  if (!permits || !requestingUrl || !/^http:\/\/127\.0\.0\.1:\d+\/app\//.test(requestingUrl)) return false;
  const features = featuresFor(permission, mediaTypes);
  return !!features && features.every((feature) => permits(requestingUrl, feature));
}

/**
 * Permission requests: clipboard writes from the app's main frame; an MCP App frame gets what its
 * resource declared (`_meta.ui.permissions`); everything else (notifications, …) is denied.
 */
export function permissionRequestHandler(
  _webContents: unknown,
  permission: string,
  callback: (granted: boolean) => void,
  details?: { isMainFrame: boolean; requestingUrl: string; mediaTypes?: string[] },
  appFrames?: AppFramePermits,
) {
  if (details && !details.isMainFrame && appFrameGranted(permission, details.requestingUrl, details.mediaTypes, appFrames)) return callback(true);
  callback(APP_PERMISSIONS.has(permission) && details?.isMainFrame === true && isAppUrl(details.requestingUrl));
}

export function permissionCheckHandler(
  _webContents: unknown,
  permission: string,
  requestingOrigin: string,
  details?: Pick<PermissionCheckHandlerHandlerDetails, 'isMainFrame' | 'requestingUrl' | 'embeddingOrigin'>,
  appFrames?: AppFramePermits,
): boolean {
  if (details && !details.isMainFrame && isAppUrl(details.embeddingOrigin ?? '') && appFrameGranted(permission, details.requestingUrl, undefined, appFrames)) return true;
  return APP_PERMISSIONS.has(permission) && details?.isMainFrame === true && !details.embeddingOrigin && isAppUrl(requestingOrigin) && isAppUrl(details.requestingUrl ?? '');
}

/** The parts of an IPC sender frame the guard needs; Electron's WebFrameMain satisfies it. */
export interface SenderFrameLike {
  url: string;
  parent: unknown;
}

/**
 * IPC is only for the app's main frame on the app's origin: an iframe, a navigated-away page or a
 * detached frame (null) is refused, so a compromised or foreign document cannot reach the backend.
 */
export function isTrustedSender(frame: SenderFrameLike | null | undefined, appOrigin: string = APP_ORIGIN): boolean {
  if (!frame) return false;
  if (frame.parent !== null) return false;
  return isAppUrl(frame.url, appOrigin);
}
