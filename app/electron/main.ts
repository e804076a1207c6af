import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as electron from 'electron';
import electronUpdater from 'electron-updater';
import type { UpdaterLike } from './AppUpdates';
import type { DesktopElectron } from './DesktopElectron';
import { startDesktopApp } from './startDesktopApp';

// The entry Electron runs: the real `electron` module handed to the composition root, which tests
// drive with FakeElectron instead (app/electron/testing/FakeElectron.ts). Getters, because some
// modules (screen, safeStorage) may only be touched once the app is ready.
const desktopElectron: DesktopElectron = {
  get app() {
    return electron.app;
  },
  get BrowserWindow() {
    return electron.BrowserWindow;
  },
  get ipcMain() {
    return electron.ipcMain;
  },
  get protocol() {
    return electron.protocol;
  },
  get net() {
    return electron.net;
  },
  get session() {
    return electron.session;
  },
  get shell() {
    return electron.shell;
  },
  get dialog(): DesktopElectron['dialog'] {
    return {
      // The windows startDesktopApp passes are the BrowserWindows it made.
      showMessageBox: (window, options) => electron.dialog.showMessageBox(window as unknown as electron.BrowserWindow, options),
      showErrorBox: (title, content) => electron.dialog.showErrorBox(title, content),
    };
  },
  get Menu() {
    return electron.Menu;
  },
  get safeStorage() {
    return electron.safeStorage;
  },
  get screen() {
    return electron.screen;
  },
  get Notification() {
    return electron.Notification;
  },
};

startDesktopApp({
  electron: desktopElectron,
  argv: process.argv,
  env: process.env,
  versions: { electron: process.versions.electron, chrome: process.versions.chrome },
  resourcesPath: process.resourcesPath,
  mainDir: import.meta.dirname,
  // Only builds published with an update feed carry app-update.yml; the others never check.
  updater: (): UpdaterLike | undefined => {
    if (!electron.app.isPackaged || !existsSync(join(process.resourcesPath, 'app-update.yml'))) return undefined;
    return electronUpdater.autoUpdater;
  },
});
