import type { IpcCallMessage, IpcCallResult, IpcEvent } from '../../../shared/ipc';

/** What the Electron preload exposes; absent in browser mode. */
export interface TooldeckBridge {
  call(message: IpcCallMessage): Promise<IpcCallResult>;
  subscribe(path: string, input: unknown, listener: (event: IpcEvent) => void): () => void;
}

export function getBridge(): TooldeckBridge | undefined {
  return (globalThis as { tooldeckBridge?: TooldeckBridge }).tooldeckBridge;
}
