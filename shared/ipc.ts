/** The only channels the preload exposes; all share one prefix so the allow-list is obvious. */
export const IPC_PREFIX = 'tooldeck:rpc:';
export const IPC_CALL = `${IPC_PREFIX}call`;
export const IPC_SUBSCRIBE = `${IPC_PREFIX}subscribe`;
export const IPC_UNSUBSCRIBE = `${IPC_PREFIX}unsubscribe`;
export const IPC_EVENT = `${IPC_PREFIX}event`;

export interface IpcCallMessage {
  type: 'query' | 'mutation';
  path: string;
  input: unknown;
}

export interface IpcSubscribeMessage {
  id: string;
  path: string;
  input: unknown;
}

export type IpcCallResult = { ok: true; data: unknown } | { ok: false; error: unknown };

export type IpcEvent =
  | { id: string; kind: 'data'; data: unknown }
  | { id: string; kind: 'error'; error: unknown }
  | { id: string; kind: 'complete' };
