import { AppError } from '../../shared/errors';
import type { ToolSourceKind } from '../registry/ToolSourceKind';
import type { PeerBridges } from './PeerBridges';

/** Where the broker URL may come from for a one-off call of a `bus:` entry, so its password stays out of the process list. */
export const AMQP_URL_ENV = 'TOOLDECK_AMQP_URL';

export interface BusSourceKindDeps {
  peers: Pick<PeerBridges, 'running' | 'connectAlone' | 'announced' | 'close'>;
  /** The broker to join for a call when no bus bridge runs in this process (the CLI passes $TOOLDECK_AMQP_URL). */
  brokerUrl: () => string | undefined;
}

/**
 * Other RockBot MCP bridges on the bus as a source kind: `bus:<agent>` is the bridge that announced
 * itself on `tool.meta.mcp.{agent}`, and its tools are entries while Tooldeck is on the bus
 * (PeerBridges is their catalog sync). Nothing is saved: a bridge is known from its announcements,
 * so none lasts and the definition lock does not track them.
 */
export class BusSourceKind implements ToolSourceKind<'bus'> {
  readonly kind = 'bus';

  constructor(private readonly deps: BusSourceKindDeps) {}

  /**
   * With the bus bridge running, the bridge must have announced itself; without it (a one-off
   * `tooldeck call`), joins the broker named by $TOOLDECK_AMQP_URL first and asks every bridge to
   * announce. ConnectionFailed when there is no broker to join, NotFound when the bridge is silent.
   */
  async prepare(name: string): Promise<void> {
    if (!this.deps.peers.running) {
      const url = this.deps.brokerUrl();
      if (!url) throw new AppError('ConnectionFailed', `bus:${name} is a bridge on RockBot's bus: start Tooldeck's bus bridge (tooldeck bus bridge, or the Bus section), or name the broker in $${AMQP_URL_ENV} for a one-off call.`);
      await this.deps.peers.connectAlone(url);
    }
    if (!(await this.deps.peers.announced(name))) throw new AppError('NotFound', `No bridge named "${name}" has announced its servers on the bus.`);
  }

  lasting(): boolean {
    return false;
  }

  async endpoints(): Promise<Record<string, string>> {
    return {};
  }

  async savedSources(): Promise<string[]> {
    return [];
  }

  close(): Promise<void> {
    return this.deps.peers.close();
  }
}
