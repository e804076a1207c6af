/**
 * What the desktop app's main process tells its window beyond the tRPC contract, and the one thing
 * the window asks of it. Its own channel prefix, so the preload's allow-list stays obvious.
 */
export const DESKTOP_PREFIX = 'tooldeck:desktop:';
/** main → renderer: a DesktopEvent. */
export const DESKTOP_EVENT = `${DESKTOP_PREFIX}event`;
/** renderer → main: restart now and install the downloaded update. */
export const DESKTOP_INSTALL_UPDATE = `${DESKTOP_PREFIX}install-update`;

export type DesktopEvent =
  /** A `tooldeck://` link (or a second launch with one) asks to show a section. */
  | { kind: 'navigate'; section: string; params: Record<string, string> }
  /** A link the app does not open (not https, not a local http page the user confirmed). */
  | { kind: 'link-blocked'; url: string; reason: string }
  /** An update finished downloading; it installs on the next quit, or now on request. */
  | { kind: 'update-ready'; version: string };
