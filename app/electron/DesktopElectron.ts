import type { AboutPanelOptionsOptions, BrowserWindowConstructorOptions, CustomScheme, MenuItemConstructorOptions, MessageBoxOptions } from 'electron';
import type { DesktopSafeStorage } from './DesktopSecretStore';

/**
 * The part of the `electron` module the desktop app uses, spelled out so startDesktopApp can be
 * driven by the real module (app/electron/main.ts) or by FakeElectron in tests. Each member keeps
 * the real signature's shape; main.ts passing `electron` itself is what checks that.
 */
export interface DesktopElectron {
  app: DesktopApp;
  BrowserWindow: { new (options: BrowserWindowConstructorOptions): DesktopWindow; getAllWindows(): DesktopWindow[] };
  ipcMain: {
    handle<T>(channel: string, listener: (event: IpcEventLike, message: T) => unknown): void;
    on<T>(channel: string, listener: (event: IpcEventLike, message: T) => void): unknown;
  };
  protocol: {
    registerSchemesAsPrivileged(schemes: CustomScheme[]): void;
    handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
  };
  net: { fetch(input: string): Promise<{ ok: boolean; headers: Headers; arrayBuffer(): Promise<ArrayBuffer> }> };
  session: { defaultSession: DesktopSession };
  shell: { openExternal(url: string): Promise<void>; openPath(path: string): Promise<string> };
  dialog: {
    showMessageBox(window: DesktopWindow, options: MessageBoxOptions): Promise<{ response: number }>;
    showErrorBox(title: string, content: string): void;
  };
  Menu: { buildFromTemplate(template: MenuItemConstructorOptions[]): unknown; setApplicationMenu(menu: never): void };
  safeStorage: DesktopSafeStorage;
  screen: { getAllDisplays(): Array<{ workArea: { x: number; y: number; width: number; height: number } }> };
  /** Desktop notifications from the main process (plain title and body; no actions, no HTML). */
  Notification: { new (options: { title: string; body: string }): DesktopNotification; isSupported(): boolean };
}

export interface DesktopNotification {
  show(): void;
  on(event: 'click', listener: () => void): unknown;
}

export interface DesktopApp {
  readonly isPackaged: boolean;
  getPath(name: 'userData' | 'logs'): string;
  setPath(name: 'userData', path: string): void;
  setAppLogsPath(path?: string): void;
  getAppPath(): string;
  requestSingleInstanceLock(): boolean;
  setAsDefaultProtocolClient(protocol: string, path?: string, args?: string[]): boolean;
  setAboutPanelOptions(options: AboutPanelOptionsOptions): void;
  showAboutPanel(): void;
  whenReady(): Promise<void>;
  on(event: 'second-instance', listener: (event: unknown, argv: string[]) => void): unknown;
  on(event: 'open-url', listener: (event: { preventDefault(): void }, url: string) => void): unknown;
  on(event: 'will-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  on(event: 'window-all-closed' | 'activate', listener: () => void): unknown;
  on(event: 'web-contents-created', listener: (event: unknown, contents: { on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown }) => void): unknown;
  quit(): void;
  exit(code?: number): void;
}

export interface DesktopWebContents {
  readonly id: number;
  isDestroyed(): boolean;
  send(channel: string, payload: unknown): void;
  reload(): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  on(event: 'will-navigate', listener: (event: { preventDefault(): void }, url: string) => void): unknown;
  on(event: 'render-process-gone', listener: (event: unknown, details: { reason: string; exitCode: number }) => void): unknown;
  on(event: 'destroyed', listener: () => void): unknown;
  on(event: 'did-start-navigation', listener: (details: { isMainFrame: boolean; isSameDocument: boolean }) => void): unknown;
}

export interface DesktopWindow {
  readonly webContents: DesktopWebContents;
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
  restore(): void;
  maximize(): void;
  isMinimized(): boolean;
  isMaximized(): boolean;
  isDestroyed(): boolean;
  getNormalBounds(): { x: number; y: number; width: number; height: number };
  once(event: 'ready-to-show', listener: () => void): unknown;
  on(event: 'close' | 'closed' | 'resize' | 'move', listener: () => void): unknown;
}

export interface DesktopSession {
  setPermissionRequestHandler(handler: (webContents: unknown, permission: string, callback: (granted: boolean) => void, details: { isMainFrame: boolean; requestingUrl: string }) => void): void;
  setPermissionCheckHandler(handler: (webContents: unknown, permission: string, requestingOrigin: string, details: { isMainFrame: boolean; requestingUrl?: string; embeddingOrigin?: string }) => boolean): void;
}

/** What an IPC handler gets: the sending WebContents and the frame (checked by isTrustedSender). */
export interface IpcEventLike {
  sender: DesktopWebContents;
  senderFrame: { url: string; parent: unknown } | null;
}
