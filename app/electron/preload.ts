import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { DESKTOP_EVENT, DESKTOP_INSTALL_UPDATE, type DesktopEvent } from '../../shared/desktop';
import { IPC_CALL, IPC_EVENT, IPC_SUBSCRIBE, IPC_UNSUBSCRIBE, type IpcCallMessage, type IpcEvent } from '../../shared/ipc';

// The page gets exactly these bridges: a call and a subscribe on the tRPC channels, and the
// desktop's own events (deep links, blocked links, updates) — no ipcRenderer.
let nextId = 0;
const listeners = new Map<string, (event: IpcEvent) => void>();

ipcRenderer.on(IPC_EVENT, (_event: IpcRendererEvent, message: IpcEvent) => {
  listeners.get(message.id)?.(message);
  if (message.kind !== 'data') listeners.delete(message.id);
});

contextBridge.exposeInMainWorld('tooldeckBridge', {
  call: (message: IpcCallMessage) => ipcRenderer.invoke(IPC_CALL, message),
  subscribe: (path: string, input: unknown, listener: (event: IpcEvent) => void) => {
    const id = `s${++nextId}`;
    listeners.set(id, listener);
    ipcRenderer.send(IPC_SUBSCRIBE, { id, path, input });
    return () => {
      listeners.delete(id);
      ipcRenderer.send(IPC_UNSUBSCRIBE, { id });
    };
  },
});

// Events that arrive before the page listens (a deep link handled while it loads) wait here.
const early: DesktopEvent[] = [];
let desktopListener: ((event: DesktopEvent) => void) | undefined;
ipcRenderer.on(DESKTOP_EVENT, (_event: IpcRendererEvent, message: DesktopEvent) => {
  if (desktopListener) desktopListener(message);
  else early.push(message);
});

contextBridge.exposeInMainWorld('tooldeckDesktop', {
  onEvent: (listener: (event: DesktopEvent) => void) => {
    desktopListener = listener;
    for (const message of early.splice(0)) listener(message);
    return () => {
      if (desktopListener === listener) desktopListener = undefined;
    };
  },
  installUpdate: () => ipcRenderer.send(DESKTOP_INSTALL_UPDATE),
});
