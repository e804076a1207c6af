import type { AnyTRPCRouter } from '@trpc/server';
import type { IpcCallMessage, IpcCallResult, IpcEvent, IpcSubscribeMessage } from '../../shared/ipc';
import { IpcRpcServer } from './IpcRpcServer';

/** The parts of a WebContents the host needs. */
export interface RpcWebContents {
  readonly id: number;
  isDestroyed(): boolean;
  send(channel: string, payload: unknown): void;
  on(event: 'destroyed' | 'render-process-gone', listener: () => void): unknown;
  on(event: 'did-start-navigation', listener: (details: { isMainFrame: boolean; isSameDocument: boolean }) => void): unknown;
}

/**
 * One IpcRpcServer per window's WebContents, so a page's subscriptions end with that page: when it
 * reloads or navigates (a new document starts with nothing subscribed), crashes, or closes. Without
 * this, a reloaded window keeps the old page's streams running and sending into the void.
 */
export class IpcRpcHost<TContext extends object> {
  private readonly servers = new Map<number, IpcRpcServer<TContext>>();

  constructor(
    private readonly router: AnyTRPCRouter,
    private readonly createContext: () => Promise<TContext>,
    private readonly eventChannel: string,
  ) {}

  async call(sender: RpcWebContents, message: IpcCallMessage): Promise<IpcCallResult> {
    return (await this.serverFor(sender)).call(message);
  }

  async subscribe(sender: RpcWebContents, message: IpcSubscribeMessage): Promise<void> {
    const server = await this.serverFor(sender);
    await server.subscribe(message, (event: IpcEvent) => {
      if (!sender.isDestroyed()) sender.send(this.eventChannel, event);
    });
  }

  unsubscribe(sender: RpcWebContents, id: string) {
    this.servers.get(sender.id)?.unsubscribe(id);
  }

  /** Subscriptions still running for a WebContents (0 when it has none). */
  activeSubscriptions(sender: { id: number }): number {
    return this.servers.get(sender.id)?.activeSubscriptions ?? 0;
  }

  /** Ends every subscription of every window (quitting). */
  closeAll() {
    for (const server of this.servers.values()) server.unsubscribeAll();
    this.servers.clear();
  }

  private async serverFor(sender: RpcWebContents): Promise<IpcRpcServer<TContext>> {
    const existing = this.servers.get(sender.id);
    if (existing) return existing;
    // The core may still be starting: calls wait for it rather than fail.
    const context = await this.createContext();
    const again = this.servers.get(sender.id);
    if (again) return again;
    const server = new IpcRpcServer(this.router, () => context);
    this.servers.set(sender.id, server);
    const end = () => server.unsubscribeAll();
    sender.on('did-start-navigation', (details) => {
      if (details.isMainFrame && !details.isSameDocument) end();
    });
    sender.on('render-process-gone', end);
    sender.on('destroyed', () => {
      end();
      this.servers.delete(sender.id);
    });
    return server;
  }
}
