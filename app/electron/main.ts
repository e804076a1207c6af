import { extname, join, normalize, sep } from 'node:path';
import { app, BrowserWindow, ipcMain, net, protocol, safeStorage, session, shell } from 'electron';
import { createCore } from '../../main/core';
import { createStderrLogger } from '../../main/platform/Logger';
import { appRouter } from '../../main/rpc/router';
import { APP_VERSION } from '../common/appVersion';
import { SECURITY_HEADERS } from '../common/contentSecurityPolicy';
import { IPC_CALL, IPC_EVENT, IPC_SUBSCRIBE, IPC_UNSUBSCRIBE, type IpcCallMessage, type IpcSubscribeMessage } from '../../shared/ipc';
import { IpcRpcServer } from './IpcRpcServer';
import { SafeStorageSecretStore } from './SafeStorageSecretStore';
import {
  APP_HOST,
  APP_ORIGIN,
  APP_SCHEME,
  decideWindowOpen,
  isTrustedSender,
  mainWindowOptions,
  permissionCheckHandler,
  permissionRequestHandler,
  shouldBlockNavigation,
} from './windowSecurity';

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

const rendererDir = join(import.meta.dirname, '../renderer');
const dataDir = app.getPath('userData');
const core = await createCore({
  appVersion: APP_VERSION,
  host: 'electron',
  dataDir,
  secretStore: new SafeStorageSecretStore(safeStorage, join(dataDir, 'secrets', 'secrets.safestorage.json')),
  logger: createStderrLogger('info'),
  versions: { electron: process.versions.electron, chrome: process.versions.chrome },
  autoConnect: true,
});
const rpc = new IpcRpcServer(appRouter, () => ({ core }));

/** Serves the built renderer on app://tooldeck with the CSP header; nothing outside rendererDir. */
function registerAppProtocol() {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return new Response('Not found', { status: 404 });
    const relative = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '') || 'index.html';
    const file = join(rendererDir, extname(relative) ? relative : 'index.html');
    if (!file.startsWith(rendererDir + sep)) return new Response('Not found', { status: 404 });
    const response = await net.fetch(`file://${file}`).catch(() => undefined);
    if (!response?.ok) return new Response('Not found', { status: 404 });
    const headers = new Headers(response.headers);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
    return new Response(await response.arrayBuffer(), { status: 200, headers });
  });
}

function registerIpc() {
  ipcMain.handle(IPC_CALL, (event, message: IpcCallMessage) => {
    if (!isTrustedSender(event.senderFrame)) throw new Error('IPC refused: sender is not the app main frame');
    return rpc.call(message);
  });
  ipcMain.on(IPC_SUBSCRIBE, (event, message: IpcSubscribeMessage) => {
    if (!isTrustedSender(event.senderFrame)) return;
    void rpc.subscribe(message, (payload) => {
      if (!event.sender.isDestroyed()) event.sender.send(IPC_EVENT, payload);
    });
  });
  ipcMain.on(IPC_UNSUBSCRIBE, (event, message: { id: string }) => {
    if (!isTrustedSender(event.senderFrame)) return;
    rpc.unsubscribe(message.id);
  });
}

function createWindow() {
  const window = new BrowserWindow(mainWindowOptions(join(import.meta.dirname, '../preload/preload.cjs')));
  window.webContents.on('will-navigate', (event, url) => {
    if (shouldBlockNavigation(url)) event.preventDefault();
  });
  window.webContents.setWindowOpenHandler(({ url }) => {
    const decision = decideWindowOpen(url);
    if (decision.openExternally) void shell.openExternal(decision.openExternally);
    return { action: decision.action };
  });
  window.webContents.on('render-process-gone', () => rpc.unsubscribeAll());
  window.once('ready-to-show', () => window.show());
  void window.loadURL(`${APP_ORIGIN}/index.html`);
}

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

void app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler(permissionRequestHandler);
  session.defaultSession.setPermissionCheckHandler(permissionCheckHandler);
  registerAppProtocol();
  registerIpc();
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  rpc.unsubscribeAll();
  if (process.platform !== 'darwin') app.quit();
});

app.on('will-quit', () => {
  void core.close();
});
