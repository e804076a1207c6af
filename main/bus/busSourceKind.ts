import { AppError } from '../../shared/errors';
import type { ToolSourceKind } from '../registry/ToolSourceKind';
import type { PeerBridges } from './PeerBridges';

/**
 * Other RockBot MCP bridges on the bus as a source kind: `bus:<agent>` is the bridge that announced
 * itself on `tool.meta.mcp.{agent}`, and its tools are entries while Tooldeck's bus bridge runs
 * (PeerBridges is their catalog sync). Nothing is saved: a bridge is known from its announcements,
 * so none lasts and the definition lock does not track them.
 */
export class BusSourceKind implements ToolSourceKind<'bus'> {
  readonly kind = 'bus';

  constructor(private readonly peers: Pick<PeerBridges, 'running' | 'has'>) {}

  async prepare(name: string): Promise<void> {
    if (!this.peers.running) throw new AppError('ConnectionFailed', `bus:${name} is a bridge on RockBot's bus, and Tooldeck's bus bridge is not running: start it (tooldeck bus bridge, or the Bus section) to reach other bridges.`);
    if (!this.peers.has(name)) throw new AppError('NotFound', `No bridge named "${name}" has announced its servers on the bus.`);
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
}
