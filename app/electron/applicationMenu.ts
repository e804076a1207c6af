import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  showAbout(): void;
  checkForUpdates?(): void;
  openDataFolder(): void;
  openLogsFolder(): void;
}

/**
 * The menu bar. Edit gives copy and paste their shortcuts (on macOS text fields have none
 * without it). Reload and DevTools appear only with the debug flag: in a release a stray
 * Ctrl+R must not drop the operator's work, and DevTools stay closed.
 */
export function applicationMenuTemplate(options: { platform: NodeJS.Platform; debug: boolean; appName: string; actions: MenuActions }): MenuItemConstructorOptions[] {
  const { platform, debug, appName, actions } = options;
  const mac = platform === 'darwin';
  const updates: MenuItemConstructorOptions[] = actions.checkForUpdates ? [{ label: 'Check for Updates…', click: () => actions.checkForUpdates?.() }] : [];
  const folders: MenuItemConstructorOptions[] = [
    { label: 'Open Data Folder', click: () => actions.openDataFolder() },
    { label: 'Open Logs Folder', click: () => actions.openLogsFolder() },
  ];
  return [
    ...(mac
      ? [
          {
            label: appName,
            submenu: [
              { label: `About ${appName}`, click: () => actions.showAbout() },
              ...updates,
              { type: 'separator' },
              { role: 'services' },
              { type: 'separator' },
              { role: 'hide' },
              { role: 'hideOthers' },
              { role: 'unhide' },
              { type: 'separator' },
              { role: 'quit' },
            ] satisfies MenuItemConstructorOptions[],
          },
        ]
      : []),
    { label: 'File', submenu: [...folders, { type: 'separator' }, mac ? { role: 'close' } : { role: 'quit' }] },
    {
      label: 'Edit',
      submenu: [{ role: 'undo' }, { role: 'redo' }, { type: 'separator' }, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'delete' }, { type: 'separator' }, { role: 'selectAll' }],
    },
    {
      label: 'View',
      submenu: [
        ...(debug ? ([{ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }, { type: 'separator' }] satisfies MenuItemConstructorOptions[]) : []),
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { label: 'Window', submenu: mac ? [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }] : [{ role: 'minimize' }, { role: 'close' }] },
    ...(mac ? [] : [{ label: 'Help', submenu: [{ label: `About ${appName}`, click: () => actions.showAbout() }, ...updates] }]),
  ];
}
