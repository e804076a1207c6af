import { callTRPCProcedure, getErrorShape, getTRPCErrorFromUnknown, type AnyTRPCRouter } from '@trpc/server';
import { isAsyncIterable } from '@trpc/server/unstable-core-do-not-import';
import type { IpcCallMessage, IpcCallResult, IpcEvent, IpcSubscribeMessage } from '../../shared/ipc';

/**
 * Runs tRPC procedures for IPC messages. It knows nothing of Electron: the host hands it messages
 * that already passed the sender check, and a `send` for subscription events.
 */
export class IpcRpcServer<TContext extends object> {
  private readonly subscriptions = new Map<string, AbortController>();

  constructor(
    private readonly router: AnyTRPCRouter,
    private readonly createContext: () => TContext,
  ) {}

  async call(message: IpcCallMessage): Promise<IpcCallResult> {
    const ctx = this.createContext();
    try {
      const data = await callTRPCProcedure({
        router: this.router,
        path: message.path,
        getRawInput: async () => message.input,
        ctx,
        type: message.type,
        signal: undefined,
        batchIndex: 0,
      });
      return { ok: true, data };
    } catch (cause) {
      return { ok: false, error: this.shape(cause, message.type, message.path, message.input, ctx) };
    }
  }

  /** Starts a subscription; events go to `send` until the iterator ends, fails or `unsubscribe`. */
  async subscribe(message: IpcSubscribeMessage, send: (event: IpcEvent) => void): Promise<void> {
    const ctx = this.createContext();
    const controller = new AbortController();
    this.subscriptions.get(message.id)?.abort();
    this.subscriptions.set(message.id, controller);
    try {
      const result = await callTRPCProcedure({
        router: this.router,
        path: message.path,
        getRawInput: async () => message.input,
        ctx,
        type: 'subscription',
        signal: controller.signal,
        batchIndex: 0,
      });
      if (!isAsyncIterable(result)) throw new Error(`${message.path} did not return an async iterable`);
      for await (const data of result) {
        if (controller.signal.aborted) break;
        send({ id: message.id, kind: 'data', data });
      }
      if (!controller.signal.aborted) send({ id: message.id, kind: 'complete' });
    } catch (cause) {
      if (!controller.signal.aborted) send({ id: message.id, kind: 'error', error: this.shape(cause, 'subscription', message.path, message.input, ctx) });
    } finally {
      if (this.subscriptions.get(message.id) === controller) this.subscriptions.delete(message.id);
    }
  }

  unsubscribe(id: string) {
    this.subscriptions.get(id)?.abort();
    this.subscriptions.delete(id);
  }

  /** Ends every subscription, e.g. when the window's renderer goes away. */
  unsubscribeAll() {
    for (const controller of this.subscriptions.values()) controller.abort();
    this.subscriptions.clear();
  }

  get activeSubscriptions(): number {
    return this.subscriptions.size;
  }

  private shape(cause: unknown, type: 'query' | 'mutation' | 'subscription', path: string, input: unknown, ctx: TContext) {
    return getErrorShape({ config: this.router._def._config, error: getTRPCErrorFromUnknown(cause), type, path, input, ctx });
  }
}
