import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserWindowConstructorOptions, CustomScheme, MenuItemConstructorOptions, MessageBoxOptions } from 'electron';
import type { DesktopApp, DesktopElectron, DesktopNotification, DesktopSession, DesktopWebContents, DesktopWindow, IpcEventLike } from '../DesktopElectron';

/**
 * A stand-in for the `electron` module (the binary cannot be downloaded here) that keeps the rules
 * Electron documents, so code that breaks them fails in tests the way it would fail in the app:
 *   - BrowserWindow, screen, session, protocol.handle, dialog.showMessageBox and safeStorage only
 *     after `ready` (safeStorage's keychain is unavailable before it; the others throw);
 *   - protocol.registerSchemesAsPrivileged only before `ready`, and once;
 *   - app.setPath('userData') before `ready` (Electron accepts it later, but Chromium has already
 *     made its profile in the old folder, so the fake refuses);
 *   - requestSingleInstanceLock: one holder per userData folder among fakes sharing a
 *     FakeInstanceLocks; a later caller gets false and the holder gets 'second-instance' (after ready);
 *   - ipcMain.handle: one handler per channel; webContents.send on a destroyed WebContents throws;
 *   - app.quit emits before-quit, closes windows, then will-quit (preventDefault stops the quit) and
 *     quit; app.exit ends at once without those events;
 *   - Notification only after `ready`; shown ones are kept in `notifications`, with a click to send.
 * Every call is appended to `calls`, so tests can check the order things happened in.
 */
export class FakeElectron implements DesktopElectron {
  readonly calls: string[] = [];
  ready = false;
  /** Set once the app quit (quit completed or exit called): the exit code. */
  exitCode?: number;
  readonly windows: FakeBrowserWindow[] = [];
  readonly ipcHandlers = new Map<string, (event: IpcEventLike, message: unknown) => unknown>();
  readonly ipcListeners = new Map<string, Array<(event: IpcEventLike, message: unknown) => void>>();
  protocolHandler?: (request: Request) => Response | Promise<Response>;
  readonly opened: string[] = [];
  readonly errorBoxes: Array<{ title: string; content: string }> = [];
  readonly messageBoxes: MessageBoxOptions[] = [];
  /** Button indexes the next message boxes answer with (default: the cancel button). */
  readonly dialogAnswers: number[] = [];
  menuTemplate?: MenuItemConstructorOptions[];
  permissionRequest?: Parameters<DesktopSession['setPermissionRequestHandler']>[0];
  permissionCheck?: Parameters<DesktopSession['setPermissionCheckHandler']>[0];
  readonly app: FakeApp;
  readonly BrowserWindow: DesktopElectron['BrowserWindow'];
  readonly Notification: DesktopElectron['Notification'];
  /** Notifications shown, in order. */
  readonly notifications: FakeNotification[] = [];
  private schemesRegistered = false;
  private readonly key = randomBytes(32);

  constructor(readonly options: { userData: string; packaged?: boolean; appPath?: string; locks?: FakeInstanceLocks; storageBackend?: string; displays?: Array<{ x: number; y: number; width: number; height: number }> }) {
    this.app = new FakeApp(this);
    this.BrowserWindow = browserWindowClassFor(this);
    this.Notification = notificationClassFor(this);
  }

  /** Electron emitting `ready`. */
  async emitReady() {
    this.ready = true;
    this.calls.push('ready');
    this.app.emit('ready');
    this.app.resolveReady();
    await new Promise((resolve) => setImmediate(resolve));
  }

  afterReady(call: string, message: string) {
    this.calls.push(call);
    if (!this.ready) throw new Error(message);
  }

  readonly ipcMain = {
    handle: <T>(channel: string, listener: (event: IpcEventLike, message: T) => unknown) => {
      this.calls.push(`ipcMain.handle ${channel}`);
      if (this.ipcHandlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      this.ipcHandlers.set(channel, listener as (event: IpcEventLike, message: unknown) => unknown);
    },
    on: <T>(channel: string, listener: (event: IpcEventLike, message: T) => void) => {
      this.calls.push(`ipcMain.on ${channel}`);
      this.ipcListeners.set(channel, [...(this.ipcListeners.get(channel) ?? []), listener as (event: IpcEventLike, message: unknown) => void]);
    },
  };

  readonly protocol = {
    registerSchemesAsPrivileged: (_schemes: CustomScheme[]) => {
      this.calls.push('protocol.registerSchemesAsPrivileged');
      if (this.ready) throw new Error('protocol.registerSchemesAsPrivileged should be called before app is ready');
      if (this.schemesRegistered) throw new Error('protocol.registerSchemesAsPrivileged can only be called once');
      this.schemesRegistered = true;
    },
    handle: (scheme: string, handler: (request: Request) => Response | Promise<Response>) => {
      this.afterReady(`protocol.handle ${scheme}`, 'protocol.handle can only be used after the app is ready');
      this.protocolHandler = handler;
    },
  };

  readonly net = {
    fetch: async (input: string) => {
      try {
        const body = await readFile(fileURLToPath(input));
        return new Response(body, { status: 200, headers: { 'Content-Type': input.endsWith('.html') ? 'text/html' : 'application/octet-stream' } });
      } catch {
        return new Response('not found', { status: 404 });
      }
    },
  };

  private readonly defaultSession: DesktopSession = {
    setPermissionRequestHandler: (handler) => {
      this.permissionRequest = handler;
    },
    setPermissionCheckHandler: (handler) => {
      this.permissionCheck = handler;
    },
  };

  get session() {
    this.afterReady('session', 'Session can only be received when app is ready');
    return { defaultSession: this.defaultSession };
  }

  readonly shell = {
    openExternal: async (url: string) => {
      this.calls.push(`shell.openExternal ${url}`);
      this.opened.push(url);
    },
    openPath: async (path: string) => {
      this.calls.push(`shell.openPath ${path}`);
      return '';
    },
  };

  readonly dialog = {
    showMessageBox: async (_window: DesktopWindow, options: MessageBoxOptions) => {
      this.afterReady('dialog.showMessageBox', 'dialog.showMessageBox cannot be used before the app is ready');
      this.messageBoxes.push(options);
      return { response: this.dialogAnswers.shift() ?? options.cancelId ?? 0 };
    },
    // Documented as safe before ready (it is how early start-up errors are reported).
    showErrorBox: (title: string, content: string) => {
      this.calls.push('dialog.showErrorBox');
      this.errorBoxes.push({ title, content });
    },
  };

  readonly Menu = {
    buildFromTemplate: (template: MenuItemConstructorOptions[]) => template,
    setApplicationMenu: (menu: never) => {
      this.calls.push('Menu.setApplicationMenu');
      this.menuTemplate = menu as MenuItemConstructorOptions[];
    },
  };

  /** Chromium's OSCrypt, imitated: AES-256-GCM under a per-fake key, and only once the app is ready. */
  readonly safeStorage = {
    isAsyncEncryptionAvailable: async () => {
      this.afterReady('safeStorage.isAsyncEncryptionAvailable', 'safeStorage cannot be used before the app is ready');
      return true;
    },
    encryptStringAsync: async (plain: string) => {
      this.afterReady('safeStorage.encryptStringAsync', 'safeStorage cannot be used before the app is ready');
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', this.key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from('v10'), iv, cipher.getAuthTag(), data]);
    },
    decryptStringAsync: async (encrypted: Buffer) => {
      this.afterReady('safeStorage.decryptStringAsync', 'safeStorage cannot be used before the app is ready');
      const decipher = createDecipheriv('aes-256-gcm', this.key, encrypted.subarray(3, 15));
      decipher.setAuthTag(encrypted.subarray(15, 31));
      return { result: Buffer.concat([decipher.update(encrypted.subarray(31)), decipher.final()]).toString('utf8'), shouldReEncrypt: false };
    },
    getSelectedStorageBackend: () => (this.ready ? (this.options.storageBackend ?? 'gnome_libsecret') : 'unknown'),
  };

  get screen() {
    this.afterReady('screen', "The 'screen' module can't be used before the app 'ready' event");
    return { getAllDisplays: () => (this.options.displays ?? [{ x: 0, y: 0, width: 1920, height: 1080 }]).map((workArea) => ({ workArea })) };
  }

  windowClosed() {
    if (!this.app.isQuitting && this.windows.every((w) => w.isDestroyed())) this.app.emit('window-all-closed');
  }

  /** The IPC event a message from `window`'s main frame (or another frame) carries. */
  ipcEvent(window: FakeBrowserWindow, frame: { url: string; parent: unknown } | null = { url: window.url, parent: null }): IpcEventLike {
    return { sender: window.webContents, senderFrame: frame };
  }
}

function browserWindowClassFor(fake: FakeElectron): DesktopElectron['BrowserWindow'] {
  return class extends FakeBrowserWindow {
    constructor(windowOptions: BrowserWindowConstructorOptions) {
      fake.afterReady('new BrowserWindow', 'Cannot create BrowserWindow before app is ready');
      super(fake, windowOptions);
      fake.windows.push(this);
    }
    static getAllWindows() {
      return fake.windows.filter((w) => !w.isDestroyed());
    }
  };
}

function notificationClassFor(fake: FakeElectron): DesktopElectron['Notification'] {
  return class extends FakeNotification {
    constructor(options: { title: string; body: string }) {
      fake.afterReady('new Notification', 'Notification cannot be used before the app is ready');
      super(options, (notice) => fake.notifications.push(notice));
    }
    static isSupported() {
      return true;
    }
  };
}

export class FakeNotification extends EventEmitter implements DesktopNotification {
  constructor(
    readonly options: { title: string; body: string },
    private readonly onShow: (notice: FakeNotification) => void,
  ) {
    super();
  }

  show() {
    this.onShow(this);
  }

  /** The operator clicking the notification. */
  click() {
    this.emit('click');
  }
}

/** The single-instance locks of the machine, shared by fakes that stand for separate app processes. */
export class FakeInstanceLocks {
  private readonly holders = new Map<string, FakeApp>();

  request(app: FakeApp, userData: string, argv: string[]): boolean {
    const holder = this.holders.get(userData);
    if (!holder) {
      this.holders.set(userData, app);
      return true;
    }
    if (holder !== app) void holder.deliverSecondInstance(argv);
    return holder === app;
  }
}

class FakeApp extends EventEmitter implements DesktopApp {
  private readonly paths = new Map<string, string>();
  private logsPath?: string;
  resolveReady!: () => void;
  private readonly readyPromise = new Promise<void>((resolve) => {
    this.resolveReady = resolve;
  });
  argv: string[] = [];
  private quitting = false;

  get isQuitting() {
    return this.quitting;
  }

  constructor(private readonly fake: FakeElectron) {
    super();
    this.paths.set('userData', fake.options.userData);
  }

  get isPackaged() {
    return this.fake.options.packaged ?? true;
  }

  getPath(name: 'userData' | 'logs') {
    this.fake.calls.push(`app.getPath ${name}`);
    if (name === 'logs') {
      this.logsPath ??= join(this.paths.get('userData')!, 'logs');
      return this.logsPath;
    }
    return this.paths.get(name)!;
  }

  setPath(name: 'userData', path: string) {
    this.fake.calls.push(`app.setPath ${name}`);
    if (this.fake.ready) throw new Error(`app.setPath('${name}') after ready: Chromium already made its profile in the old folder`);
    this.paths.set(name, path);
  }

  setAppLogsPath(path?: string) {
    this.fake.calls.push('app.setAppLogsPath');
    this.logsPath = path ?? join(this.paths.get('userData')!, 'logs');
  }

  getAppPath() {
    return this.fake.options.appPath ?? process.cwd();
  }

  requestSingleInstanceLock() {
    this.fake.calls.push('app.requestSingleInstanceLock');
    return this.fake.options.locks ? this.fake.options.locks.request(this, this.paths.get('userData')!, this.argv) : true;
  }

  async deliverSecondInstance(argv: string[]) {
    // "This event is guaranteed to be emitted after the ready event of app gets emitted."
    await this.readyPromise;
    this.emit('second-instance', {}, argv);
  }

  setAsDefaultProtocolClient(protocol: string) {
    this.fake.calls.push(`app.setAsDefaultProtocolClient ${protocol}`);
    return true;
  }

  setAboutPanelOptions() {
    this.fake.calls.push('app.setAboutPanelOptions');
  }

  showAboutPanel() {
    this.fake.calls.push('app.showAboutPanel');
  }

  whenReady() {
    return this.readyPromise;
  }

  quit() {
    this.fake.calls.push('app.quit');
    if (this.fake.exitCode !== undefined || this.quitting) return;
    this.quitting = true;
    this.emit('before-quit', { preventDefault() {} });
    for (const window of this.fake.windows) if (!window.isDestroyed()) window.destroy();
    let prevented = false;
    this.emit('will-quit', {
      preventDefault() {
        prevented = true;
      },
    });
    this.quitting = false;
    if (prevented) return;
    this.emit('quit');
    this.fake.exitCode = 0;
  }

  exit(code = 0) {
    this.fake.calls.push(`app.exit ${code}`);
    this.fake.exitCode ??= code;
  }
}

let nextWebContentsId = 1;

export class FakeWebContents extends EventEmitter implements DesktopWebContents {
  readonly id = nextWebContentsId++;
  readonly sent: Array<{ channel: string; payload: unknown }> = [];
  reloads = 0;
  windowOpenHandler?: (details: { url: string }) => { action: 'deny' };
  private destroyed = false;

  constructor(private readonly window: FakeBrowserWindow) {
    super();
  }

  isDestroyed() {
    return this.destroyed;
  }

  send(channel: string, payload: unknown) {
    if (this.destroyed) throw new Error('Object has been destroyed');
    this.sent.push({ channel, payload: structuredClone(payload) });
  }

  reload() {
    this.reloads++;
    this.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false, url: this.window.url });
  }

  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }) {
    this.windowOpenHandler = handler;
  }

  /** The page navigating to `url` as a user's click would: will-navigate first, which may stop it. */
  navigate(url: string): boolean {
    let prevented = false;
    this.emit('will-navigate', { preventDefault: () => (prevented = true) }, url);
    return !prevented;
  }

  destroy() {
    this.destroyed = true;
    this.emit('destroyed');
  }
}

export class FakeBrowserWindow extends EventEmitter implements DesktopWindow {
  readonly webContents: FakeWebContents;
  readonly loaded: string[] = [];
  url = '';
  shown = false;
  focused = 0;
  minimized = false;
  private maximized = false;
  private destroyed = false;

  constructor(
    private readonly fake: FakeElectron,
    readonly options: BrowserWindowConstructorOptions,
  ) {
    super();
    this.webContents = new FakeWebContents(this);
  }

  async loadURL(url: string) {
    this.fake.calls.push(`window.loadURL ${url}`);
    this.loaded.push(url);
    this.url = url;
    this.webContents.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false, url });
    if (!this.shown) this.emit('ready-to-show');
  }

  show() {
    this.shown = true;
  }
  focus() {
    this.focused++;
  }
  restore() {
    this.minimized = false;
  }
  maximize() {
    this.maximized = true;
  }
  isMinimized() {
    return this.minimized;
  }
  isMaximized() {
    return this.maximized;
  }
  isDestroyed() {
    return this.destroyed;
  }
  getNormalBounds() {
    return { x: this.options.x ?? 100, y: this.options.y ?? 100, width: this.options.width ?? 800, height: this.options.height ?? 600 };
  }

  /** The user closing the window (or the app quitting). */
  destroy() {
    if (this.destroyed) return;
    this.emit('close');
    this.destroyed = true;
    this.webContents.destroy();
    this.emit('closed');
    this.fake.windowClosed();
  }
}
