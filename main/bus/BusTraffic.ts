import type { BusAgentTotals, BusExchangeView, BusOutcome } from '../../shared/bus';
import { Emitter } from '../platform/Emitter';

export type BusExchange = BusExchangeView;
export type { BusAgentTotals, BusOutcome };

export const RECENT_EXCHANGES = 200;
export const MAX_AGENTS_COUNTED = 1000;

/**
 * What the console's Bus section shows: the latest requests and replies with their latency, and
 * totals per agent. Bounded both ways (the latest RECENT_EXCHANGES, MAX_AGENTS_COUNTED agents), so a
 * burst of requests costs no memory here.
 */
export class BusTraffic {
  private nextId = 1;
  private readonly recentExchanges: BusExchange[] = [];
  private readonly totals = new Map<string, BusAgentTotals>();
  private readonly changes = new Emitter();

  started(exchange: Omit<BusExchange, 'id'>): BusExchange {
    const entry = { ...exchange, id: this.nextId++ };
    this.recentExchanges.push(entry);
    if (this.recentExchanges.length > RECENT_EXCHANGES) this.recentExchanges.shift();
    this.changes.emit();
    return entry;
  }

  finished(exchange: BusExchange, update: { outcome: BusOutcome; recordId?: string }): void {
    exchange.latencyMs = Date.now() - exchange.startedAt;
    exchange.outcome = update.outcome;
    if (update.recordId !== undefined) exchange.recordId = update.recordId;
    const agent = exchange.agent ?? '(unnamed)';
    let totals = this.totals.get(agent);
    if (!totals && this.totals.size < MAX_AGENTS_COUNTED) this.totals.set(agent, (totals = { agent, requests: 0, errors: 0 }));
    if (totals) {
      totals.requests++;
      if (update.outcome !== 'ok' && update.outcome !== 'replayed') totals.errors++;
    }
    this.changes.emit();
  }

  recent(): BusExchange[] {
    return this.recentExchanges.map((exchange) => ({ ...exchange }));
  }

  perAgent(): BusAgentTotals[] {
    return [...this.totals.values()].map((totals) => ({ ...totals }));
  }

  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }
}
