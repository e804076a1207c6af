import type { BrowserWindowConstructorOptions, PermissionCheckHandlerHandlerDetails } from 'electron';

/** The app's own origin: the renderer is served from a privileged custom scheme, never file://. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'tooldeck';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1400,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    title: 'Tooldeck',
    show: false,
    backgroundColor: '#1a1b1e',
    webPreferences: {
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

export type WindowOpenDecision = { action: 'deny'; openExternally?: string };

/** setWindowOpenHandler: no new Electron windows, ever; https links go to the OS browser. */
export function decideWindowOpen(url: string): WindowOpenDecision {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'https:') return { action: 'deny', openExternally: parsed.toString() };
  } catch {
    // An unparseable URL is denied like any other.
  }
  return { action: 'deny' };
}

/** Permission requests (camera, notifications, geolocation, …) are denied: the console needs none. */
export function permissionRequestHandler(_webContents: unknown, _permission: string, callback: (granted: boolean) => void) {
  callback(false);
}

export function permissionCheckHandler(_webContents: unknown, _permission: string, _origin: string, _details?: PermissionCheckHandlerHandlerDetails): boolean {
  return false;
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
