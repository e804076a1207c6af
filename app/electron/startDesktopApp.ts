import { existsSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { createCore, type Core, type CoreDeps } from '../../main/core';
import { restoreConsoleGateway } from '../../main/gateway/consoleGateway';
import type { Logger } from '../../main/platform/Logger';
import { resolveLoginShellPath, type LoginShellPath, type LoginShellPathOptions } from '../../main/platform/loginShellPath';
import { appRouter } from '../../main/rpc/router';
import { DESKTOP_EVENT, DESKTOP_INSTALL_UPDATE, type DesktopEvent } from '../../shared/desktop';
import { IPC_CALL, IPC_EVENT, IPC_SUBSCRIBE, IPC_UNSUBSCRIBE, type IpcCallMessage, type IpcSubscribeMessage } from '../../shared/ipc';
import { APP_VERSION } from '../common/appVersion';
import { SECURITY_HEADERS } from '../common/contentSecurityPolicy';
import { applicationMenuTemplate } from './applicationMenu';
import { announceNewApprovals } from './approvalNotices';
import { AppUpdates, type UpdaterLike } from './AppUpdates';
import { DEEP_LINK_SCHEME, deepLinksIn, parseDeepLink, routeOf } from './deepLinks';
import type { DesktopElectron, DesktopWindow } from './DesktopElectron';
import { debugEnabled, desktopDataDir } from './desktopPaths';
import { DesktopSecretStore } from './DesktopSecretStore';
import { IpcRpcHost } from './IpcRpcHost';
import { RotatingFileLogger } from './RotatingFileLogger';
import { checkoutPlaceholderContext, shippedPlaceholderContext } from './shippedRuntime';
import { startingPageHtml } from './startingPage';
import {
  APP_HOST,
  APP_ORIGIN,
  APP_SCHEME,
  decideLink,
  isTrustedSender,
  mainWindowOptions,
  permissionCheckHandler,
  permissionRequestHandler,
  shouldBlockNavigation,
  type AppFrameFeature,
} from './windowSecurity';
import { placementFor, WindowStateStore } from './WindowStateStore';
import { operatorCaller } from '../../shared/caller';

export interface DesktopAppOptions {
  electron: DesktopElectron;
  argv: string[];
  /** The process environment: PATH is replaced by the login shell's before any server starts. */
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  versions?: { electron?: string; chrome?: string };
  /** Electron's `process.resourcesPath`: the shipped Node.js, servers, examples and icon. */
  resourcesPath: string;
  /** The built main process's folder (out/main): the preload and the renderer are beside it. */
  mainDir: string;
  createCore?: (deps: CoreDeps) => Promise<Core>;
  resolvePath?: (options: LoginShellPathOptions) => Promise<LoginShellPath>;
  /** electron-updater's autoUpdater when this build has an update feed, else undefined. */
  updater?: () => UpdaterLike | undefined;
  /** How long quitting waits for the core to flush history and end its servers (default 10 s). */
  quitTimeoutMs?: number;
  /** Where the log mirror goes in debug mode (default stderr). */
  mirrorLog?: (line: string) => void;
}

export interface RunningDesktopApp {
  /** `secondary`: another instance holds the lock for this data folder; this one handed over and quits. */
  role: 'primary' | 'secondary';
  dataDir: string;
  /** Settles once the window shows the app (`running`) or start-up failed and the app exits with 1 (`failed`). */
  started: Promise<'running' | 'failed' | 'secondary'>;
}

const STARTING_PATH = '/__starting';
const CRASH_WINDOW_MS = 60_000;
const MAX_CRASHES = 3;

/**
 * The desktop app's composition root. Before `ready`: the data folder (an explicit one becomes
 * userData), the single-instance lock, the app:// scheme's privileges, deep-link listeners, and the
 * login shell's PATH (asked in parallel). After `ready`: permissions, the app:// protocol, IPC, the
 * menu and the window — at once, showing a starting page — then the core; a core that fails to start
 * is reported in a dialog and the app exits with 1. Quitting waits (bounded) for `core.close()`.
 */
export function startDesktopApp(options: DesktopAppOptions): RunningDesktopApp {
  const { electron, argv, env } = options;
  const { app } = electron;
  const platform = options.platform ?? process.platform;
  const data = desktopDataDir(argv, env, app.getPath('userData'));
  // Before anything reads userData (Chromium's profile, the lock, the logs folder).
  if (data.source !== 'default') app.setPath('userData', data.dir);
  if (!app.requestSingleInstanceLock()) {
    // The running instance gets our argv (its 'second-instance' event), deep links included.
    app.quit();
    return { role: 'secondary', dataDir: data.dir, started: Promise.resolve('secondary') };
  }
  const debug = debugEnabled(argv, env, app.isPackaged);
  electron.protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
  if (app.isPackaged) app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME);
  // The platform's logs folder (~/Library/Logs/Tooldeck, <userData>/logs), or inside an explicit data folder.
  if (data.source === 'default') app.setAppLogsPath();
  else app.setAppLogsPath(join(data.dir, 'logs'));
  const shellPath = (options.resolvePath ?? resolveLoginShellPath)({ env, platform });

  let logger: Logger | undefined;
  let window: DesktopWindow | undefined;
  let appShown = false;
  /** A deep link that arrived before the app was on screen: the app opens on it. */
  let pendingLink: Extract<DesktopEvent, { kind: 'navigate' }> | undefined;
  const pendingEvents: DesktopEvent[] = [];
  /** Opens a new window on a route once the app runs (macOS keeps running with no window). */
  let openWindowAt: ((route: string) => void) | undefined;
  let resolveCore!: (core: Core) => void;
  let rejectCore!: (error: unknown) => void;
  const corePromise = new Promise<Core>((resolve, reject) => {
    resolveCore = resolve;
    rejectCore = reject;
  });
  corePromise.catch(() => undefined);
  /** The core once it runs, for the synchronous permission checks of MCP App frames. */
  let liveCore: Core | undefined;
  corePromise.then((core) => (liveCore = core), () => undefined);

  const notify = (event: DesktopEvent) => {
    if (appShown && window && !window.isDestroyed() && !window.webContents.isDestroyed()) window.webContents.send(DESKTOP_EVENT, event);
    else pendingEvents.push(event);
  };
  const focusWindow = () => {
    if (!window || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  };
  const openDeepLink = (url: string) => {
    const link = parseDeepLink(url);
    if ('error' in link) {
      logger?.warn('deep link ignored', { url: url.slice(0, 200), reason: link.error });
      return;
    }
    if (appShown && !window && openWindowAt) openWindowAt(routeOf(link));
    else if (appShown) notify(link);
    else pendingLink = link;
    focusWindow();
  };
  for (const url of deepLinksIn(argv)) openDeepLink(url);
  app.on('open-url', (event, url) => {
    event.preventDefault();
    openDeepLink(url);
  });
  // No <webview> ever (webviewTag is off too): a page that tries to attach one is stopped.
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
  app.on('second-instance', (_event, secondArgv) => {
    focusWindow();
    for (const url of deepLinksIn(secondArgv)) openDeepLink(url);
  });

  const started = (async (): Promise<'running' | 'failed'> => {
    await app.whenReady();
    const log = new RotatingFileLogger(join(app.getPath('logs'), 'main.log'), {
      level: debug ? 'debug' : 'info',
      mirror: debug ? (options.mirrorLog ?? ((line) => process.stderr.write(line))) : undefined,
    });
    logger = log;
    log.info('starting', { version: APP_VERSION, dataDir: data.dir, dataDirFrom: data.source, packaged: app.isPackaged, debug });

    // MCP App frames get the permissions their resource declared, decided by the core's app host.
    const appFrames = (url: string, feature: AppFrameFeature) => liveCore?.apps.permits(url, feature) ?? false;
    electron.session.defaultSession.setPermissionRequestHandler((contents, permission, callback, details) => permissionRequestHandler(contents, permission, callback, details, appFrames));
    electron.session.defaultSession.setPermissionCheckHandler((contents, permission, origin, details) => permissionCheckHandler(contents, permission, origin, details, appFrames));
    registerAppProtocol(electron, join(options.mainDir, '../renderer'), data.dir);
    let updates: AppUpdates | undefined;
    const rpc = new IpcRpcHost(appRouter, () => corePromise.then((core) => ({ core, caller: operatorCaller('ui') })), IPC_EVENT);
    registerIpc(electron, rpc, () => updates?.install());
    const updater = options.updater?.();
    if (updater) updates = new AppUpdates(updater, log, (version) => notify({ kind: 'update-ready', version }));
    app.setAboutPanelOptions({
      applicationName: 'Tooldeck',
      applicationVersion: APP_VERSION,
      version: options.versions?.electron ? `Electron ${options.versions.electron}` : '',
      copyright: 'Copyright © 2026 Tooldeck contributors',
      ...(existsSync(join(options.resourcesPath, 'icon.png')) ? { iconPath: join(options.resourcesPath, 'icon.png') } : {}),
    });
    electron.Menu.setApplicationMenu(
      electron.Menu.buildFromTemplate(
        applicationMenuTemplate({
          platform,
          debug,
          appName: 'Tooldeck',
          actions: {
            showAbout: () => app.showAboutPanel(),
            checkForUpdates: updates ? () => void checkForUpdatesFromMenu(electron, updates, () => window) : undefined,
            openDataFolder: () => void electron.shell.openPath(data.dir),
            openLogsFolder: () => void electron.shell.openPath(app.getPath('logs')),
          },
        }),
      ) as never,
    );

    const windowState = new WindowStateStore(data.dir);
    const crashes: number[] = [];
    const createWindow = async (url: string) => {
      const { placement, maximized } = placementFor(await windowState.load(), electron.screen.getAllDisplays().map((display) => display.workArea));
      const icon = platform === 'linux' && existsSync(join(options.resourcesPath, 'icon.png')) ? join(options.resourcesPath, 'icon.png') : undefined;
      const win = new electron.BrowserWindow(mainWindowOptions(join(options.mainDir, '../preload/preload.cjs'), { devTools: debug, placement, icon }));
      window = win;
      if (maximized) win.maximize();
      win.once('ready-to-show', () => win.show());
      let saveTimer: NodeJS.Timeout | undefined;
      const saveState = () => {
        clearTimeout(saveTimer);
        if (win.isDestroyed()) return;
        void windowState.save({ ...win.getNormalBounds(), maximized: win.isMaximized() }).catch((error: Error) => log.warn('window state not saved', { error: error.message }));
      };
      const saveSoon = () => {
        clearTimeout(saveTimer);
        saveTimer = setTimeout(saveState, 500);
      };
      win.on('resize', saveSoon);
      win.on('move', saveSoon);
      win.on('close', saveState);
      win.on('closed', () => {
        clearTimeout(saveTimer);
        if (window === win) window = undefined;
      });
      const contents = win.webContents;
      contents.on('will-navigate', (event, target) => {
        if (!shouldBlockNavigation(target)) return;
        event.preventDefault();
        void openLink(target);
      });
      contents.setWindowOpenHandler(({ url: target }) => {
        void openLink(target);
        return { action: 'deny' };
      });
      contents.on('render-process-gone', (_event, details) => {
        log.error('the window’s renderer is gone', { reason: details.reason, exitCode: details.exitCode });
        if (details.reason === 'clean-exit' || win.isDestroyed()) return;
        const now = Date.now();
        crashes.push(now);
        while (crashes.length && crashes[0]! < now - CRASH_WINDOW_MS) crashes.shift();
        if (crashes.length < MAX_CRASHES) return contents.reload();
        void electron.dialog
          .showMessageBox(win, { type: 'error', message: 'The Tooldeck window keeps crashing', detail: `Reason: ${details.reason}. The log is in ${log.file}.`, buttons: ['Reload', 'Quit'], defaultId: 0, cancelId: 1 })
          .then(({ response }) => (response === 0 ? (crashes.length = 0, contents.reload()) : app.quit()));
      });
      await win.loadURL(url).catch((error: Error) => log.warn('window load failed', { url, error: error.message }));
      return win;
    };

    const openLink = async (url: string) => {
      const decision = decideLink(url);
      if (decision.action === 'open') return electron.shell.openExternal(decision.url);
      if (decision.action === 'confirm' && window) {
        const { response } = await electron.dialog.showMessageBox(window, {
          type: 'question',
          message: 'Open a page on this computer?',
          detail: `${decision.url}\n\nThe link leads to a web server running on this machine (a sign-in callback, a server's own page). Open it in your browser only if you expect it.`,
          buttons: ['Open in Browser', 'Cancel'],
          defaultId: 1,
          cancelId: 1,
        });
        if (response === 0) await electron.shell.openExternal(decision.url);
        return;
      }
      if (decision.action === 'block') {
        log.info('link not opened', { url: url.slice(0, 200), reason: decision.reason });
        notify({ kind: 'link-blocked', url: url.slice(0, 2000), reason: decision.reason });
      }
    };

    const showApp = async (win: DesktopWindow) => {
      const route = pendingLink ? routeOf(pendingLink) : '/';
      pendingLink = undefined;
      await win.loadURL(`${APP_ORIGIN}${route}`).catch((error: Error) => log.warn('window load failed', { error: error.message }));
      appShown = true;
      // A link that came in while the app was loading.
      if (pendingLink) notify(pendingLink);
      pendingLink = undefined;
      for (const event of pendingEvents.splice(0)) notify(event);
    };

    // The window opens now, on the starting page; the app replaces it once the core is up.
    const first = await createWindow(`${APP_ORIGIN}${STARTING_PATH}`);
    app.on('window-all-closed', () => {
      if (platform !== 'darwin') app.quit();
    });
    openWindowAt = (route) => void createWindow(`${APP_ORIGIN}${route}`);
    app.on('activate', () => {
      if (!window) openWindowAt?.('/');
    });

    let closed = false;
    let closing: Promise<void> | undefined;
    /** Stops the approval notices once they run (they start after the core). */
    const approvalNotices: { stop?: () => void } = {};
    app.on('will-quit', (event) => {
      if (closed) return;
      event.preventDefault();
      approvalNotices.stop?.();
      closing ??= closeCore(corePromise, rpc, updates, log, options.quitTimeoutMs ?? 10_000).finally(() => {
        closed = true;
        app.quit();
      });
    });

    try {
      const path = await shellPath;
      env.PATH = path.path;
      log.info('PATH for servers and exec plugins', { from: path.source, added: path.added, ...(path.reason ? { reason: path.reason } : {}) });
      const core = await (options.createCore ?? createCore)({
        appVersion: APP_VERSION,
        host: 'electron',
        dataDir: data.dir,
        secretStore: new DesktopSecretStore(electron.safeStorage, data.dir, platform),
        logger: log,
        versions: options.versions,
        autoConnect: true,
        placeholders: app.isPackaged ? shippedPlaceholderContext(options.resourcesPath, platform) : checkoutPlaceholderContext(app.getAppPath()),
      });
      resolveCore(core);
      // A gateway started from the Gateway section stays on across restarts (its port taken: off, with the reason shown there).
      void restoreConsoleGateway(core, log).catch((error: unknown) => log.warn("The console's gateway was not restored", { error: String(error) }));
    } catch (error) {
      rejectCore(error);
      const message = error instanceof Error ? error.message : String(error);
      log.error('Tooldeck could not start', { error: message, stack: error instanceof Error ? error.stack : undefined });
      electron.dialog.showErrorBox('Tooldeck could not start', `${message}\n\nData folder: ${data.dir}\nLog: ${log.file}`);
      app.exit(1);
      return 'failed';
    }
    if (window === first && !first.isDestroyed()) await showApp(first);
    else if (!window) await showApp(await createWindow(`${APP_ORIGIN}${STARTING_PATH}`));
    // Calls held for approval, by the gateway in this app or in another process on the data folder.
    const approvalsLink = { kind: 'navigate' as const, section: 'approvals', params: {} };
    approvalNotices.stop = announceNewApprovals({
      approvals: (await corePromise).approvals,
      electron,
      platform,
      logger: log,
      open: () => {
        if (!window && openWindowAt) openWindowAt(routeOf(approvalsLink));
        else notify(approvalsLink);
        focusWindow();
      },
    }).stop;
    updates?.start();
    log.info('started');
    return 'running';
  })();
  return { role: 'primary', dataDir: data.dir, started };
}

/** Serves the built renderer on app://tooldeck with the CSP header; nothing outside rendererDir. */
function registerAppProtocol(electron: DesktopElectron, rendererDir: string, dataDir: string) {
  const headers = () => new Headers(SECURITY_HEADERS);
  electron.protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return new Response('Not found', { status: 404 });
    if (url.pathname === STARTING_PATH) {
      const response = headers();
      response.set('Content-Type', 'text/html; charset=utf-8');
      return new Response(startingPageHtml(dataDir), { status: 200, headers: response });
    }
    const relative = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '') || 'index.html';
    const file = join(rendererDir, extname(relative) ? relative : 'index.html');
    if (!file.startsWith(rendererDir + sep)) return new Response('Not found', { status: 404 });
    const response = await electron.net.fetch(`file://${file}`).catch(() => undefined);
    if (!response?.ok) return new Response('Not found', { status: 404 });
    const merged = new Headers(response.headers);
    for (const [name, value] of headers()) merged.set(name, value);
    return new Response(await response.arrayBuffer(), { status: 200, headers: merged });
  });
}

function registerIpc(electron: DesktopElectron, rpc: IpcRpcHost<{ core: Core }>, installUpdate: () => void) {
  const { ipcMain } = electron;
  ipcMain.handle(IPC_CALL, (event, message: IpcCallMessage) => {
    if (!isTrustedSender(event.senderFrame)) throw new Error('IPC refused: sender is not the app main frame');
    return rpc.call(event.sender, message);
  });
  ipcMain.on(IPC_SUBSCRIBE, (event, message: IpcSubscribeMessage) => {
    if (!isTrustedSender(event.senderFrame)) return;
    void rpc.subscribe(event.sender, message);
  });
  ipcMain.on(IPC_UNSUBSCRIBE, (event, message: { id: string }) => {
    if (!isTrustedSender(event.senderFrame)) return;
    rpc.unsubscribe(event.sender, message.id);
  });
  ipcMain.on(DESKTOP_INSTALL_UPDATE, (event) => {
    if (isTrustedSender(event.senderFrame)) installUpdate();
  });
}

/** Flushes history and ends child servers, waiting at most `timeoutMs` (a stuck server must not hold the quit). */
async function closeCore(corePromise: Promise<Core>, rpc: IpcRpcHost<{ core: Core }>, updates: AppUpdates | undefined, logger: Logger, timeoutMs: number) {
  updates?.stop();
  rpc.closeAll();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const closing = corePromise.then(
    (core) => core.close().then(() => 'closed' as const),
    () => 'no core' as const,
  );
  const outcome = await Promise.race([closing, timedOut]).catch((error: Error) => {
    logger.error('closing the core failed', { error: error.message });
    return 'failed' as const;
  });
  clearTimeout(timer);
  if (outcome === 'timeout') logger.warn('quit without waiting longer for the core to close', { timeoutMs });
  else logger.info('quit', { core: outcome });
}

async function checkForUpdatesFromMenu(electron: DesktopElectron, updates: AppUpdates, window: () => DesktopWindow | undefined) {
  const win = window();
  const result = await updates.check();
  if (!win || win.isDestroyed()) return;
  if (result.status === 'ready') {
    const { response } = await electron.dialog.showMessageBox(win, { type: 'info', message: `Tooldeck ${result.version} is ready to install`, buttons: ['Restart and Update', 'Later'], defaultId: 0, cancelId: 1 });
    if (response === 0) updates.install();
  } else if (result.status === 'checked') {
    await electron.dialog.showMessageBox(win, { type: 'info', message: 'No update ready', detail: `Tooldeck ${APP_VERSION} is the newest version available, or a newer one is still downloading.`, buttons: ['OK'] });
  } else {
    await electron.dialog.showMessageBox(win, { type: 'warning', message: 'Could not check for updates', detail: result.error, buttons: ['OK'] });
  }
}
