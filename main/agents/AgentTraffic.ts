import { Emitter } from '../platform/Emitter';
import type { GatewayCallView, GatewaySessionView } from '../../shared/gateway';

/** A call running for an agent, as the live view shows it. */
interface LiveCall extends GatewayCallView {
  finished?: boolean;
}

const KEPT_CALLS = 200;

/**
 * What agents are doing right now, through every door: their open gateway sessions and their calls
 * as they happen (running, held for approval, done with latency and outcome), each call with the
 * door it came through. In memory only: history is the record of calls; this is the live picture
 * for the Gateway and Agents sections.
 */
export class AgentTraffic {
  private readonly sessions = new Map<string, GatewaySessionView>();
  private readonly calls: LiveCall[] = [];
  private readonly changes = new Emitter();
  private seq = 0;

  openSession(session: Omit<GatewaySessionView, 'calls' | 'lastActiveAt'>): void {
    this.sessions.set(session.id, { ...session, calls: 0, lastActiveAt: session.openedAt });
    this.emit();
  }

  closeSession(id: string): void {
    if (this.sessions.delete(id)) this.emit();
  }

  sessionIds(agent?: string): string[] {
    return [...this.sessions.values()].filter((session) => agent === undefined || session.agent === agent).map((session) => session.id);
  }

  /** A call started; returns its id for the updates that follow. */
  started(call: Omit<GatewayCallView, 'id' | 'state'>): string {
    const id = `g${++this.seq}`;
    this.calls.unshift({ ...call, id, state: 'running' });
    if (this.calls.length > KEPT_CALLS) this.calls.length = KEPT_CALLS;
    const session = call.sessionId ? this.sessions.get(call.sessionId) : undefined;
    if (session) {
      session.calls += 1;
      session.lastActiveAt = call.startedAt;
    }
    this.emit();
    return id;
  }

  held(id: string, approval: string): void {
    this.update(id, { state: 'held', approval });
  }

  resumed(id: string): void {
    this.update(id, { state: 'running' });
  }

  finished(id: string, outcome: Pick<GatewayCallView, 'status' | 'latencyMs' | 'recordId' | 'error'>): void {
    this.update(id, { ...outcome, state: 'done' });
  }

  snapshot(): { sessions: GatewaySessionView[]; calls: GatewayCallView[] } {
    return { sessions: [...this.sessions.values()].map((session) => ({ ...session })), calls: this.calls.map((call) => ({ ...call })) };
  }

  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  private update(id: string, patch: Partial<LiveCall>) {
    const call = this.calls.find((item) => item.id === id);
    if (!call) return;
    Object.assign(call, patch);
    this.emit();
  }

  /** A view's listener failing never stops the gateway's calls (the Emitter catches it). */
  private emit() {
    this.changes.emit();
  }
}
