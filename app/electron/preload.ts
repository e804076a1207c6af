import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { IPC_CALL, IPC_EVENT, IPC_SUBSCRIBE, IPC_UNSUBSCRIBE, type IpcCallMessage, type IpcEvent } from '../../shared/ipc';

// The page gets exactly this bridge: a call and a subscribe on the tRPC channels, no ipcRenderer.
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
