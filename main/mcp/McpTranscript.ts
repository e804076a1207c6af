import type { TranscriptEntry } from '../../shared/mcp';
import { SecretRedactor } from '../platform/SecretRedactor';
import { hasLargeString, jsonByteLength } from '../registry/jsonByteLength';
import { maskSecretFields, MAYBE_SECRET } from '../registry/recordedArguments';

const MAX_ENTRIES = 2_000;
const MAX_TEXT = 16_384;

type JsonRpcLike = { id?: string | number; method?: string; result?: unknown; error?: unknown };

/**
 * Every JSON-RPC message of one server, in order, with timestamps and request latency. Secrets are
 * masked before anything is stored — credential-named fields, and every value the redactor knows
 * (the console's stored secrets) — so an export or a screenshot of the transcript is safe.
 */
export class McpTranscript {
  private readonly entries: TranscriptEntry[] = [];
  private readonly pendingRequests = new Map<string | number, { at: number; method: string }>();
  private readonly listeners = new Set<(entry: TranscriptEntry) => void>();
  private seq = 0;

  constructor(private readonly redactor: SecretRedactor = new SecretRedactor()) {}

  recordOutgoing(message: unknown) {
    const msg = message as JsonRpcLike;
    const now = Date.now();
    if (msg.method !== undefined && msg.id !== undefined) {
      this.pendingRequests.set(msg.id, { at: now, method: msg.method });
      this.push({ at: now, direction: 'out', kind: 'request', method: msg.method, id: msg.id }, message);
    } else if (msg.method !== undefined) {
      this.push({ at: now, direction: 'out', kind: 'notification', method: msg.method }, message);
    } else {
      this.push({ at: now, direction: 'out', kind: msg.error ? 'error' : 'response', id: msg.id }, message);
    }
  }

  recordIncoming(message: unknown) {
    const msg = message as JsonRpcLike;
    const now = Date.now();
    if (msg.method !== undefined) {
      this.push({ at: now, direction: 'in', kind: msg.id !== undefined ? 'request' : 'notification', method: msg.method, id: msg.id }, message);
      return;
    }
    const pending = msg.id !== undefined ? this.pendingRequests.get(msg.id) : undefined;
    if (msg.id !== undefined) this.pendingRequests.delete(msg.id);
    this.push(
      { at: now, direction: 'in', kind: msg.error ? 'error' : 'response', id: msg.id, method: pending?.method, latencyMs: pending ? now - pending.at : undefined },
      message,
    );
  }

  recordStderr(line: string) {
    this.push({ at: Date.now(), direction: 'in', kind: 'stderr' }, undefined, this.redactor.text(line));
  }

  /** Connection lifecycle notes (connecting, negotiated era, errors) interleaved with the traffic. */
  recordEvent(text: string) {
    this.push({ at: Date.now(), direction: 'local', kind: 'event' }, undefined, this.redactor.text(text));
  }

  list(sinceSeq = -1): TranscriptEntry[] {
    return this.entries.filter((e) => e.seq > sinceSeq);
  }

  /** Entries between two instants, e.g. the traffic of one tool call. */
  slice(fromMs: number, toMs: number): TranscriptEntry[] {
    return this.entries.filter((e) => e.at >= fromMs && e.at <= toMs);
  }

  onEntry(listener: (entry: TranscriptEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  clear() {
    this.entries.length = 0;
    this.pendingRequests.clear();
  }

  /** JSON Lines, one entry per line. */
  export(): string {
    return this.entries.map((e) => JSON.stringify(e)).join('\n') + (this.entries.length ? '\n' : '');
  }

  private push(partial: Omit<TranscriptEntry, 'seq' | 'bytes' | 'text'>, message: unknown, text?: string) {
    let body = text;
    let bytes = text ? Buffer.byteLength(text) : 0;
    if (body === undefined && hasLargeString(message)) {
      // A large result is shown with its long strings cut, and measured without being copied.
      bytes = jsonByteLength(message);
      body = this.redactor.text(JSON.stringify(message, (_key, value: unknown) => (typeof value === 'string' && value.length > MAX_TEXT / 4 ? `${value.slice(0, MAX_TEXT / 4)}… (${value.length} characters)` : value)) ?? '');
    }
    if (body === undefined) {
      const raw = JSON.stringify(message) ?? '';
      bytes = Buffer.byteLength(raw);
      // Most messages carry no credential-named field: re-serialize only when a cheap scan says maybe.
      body = this.redactor.text(MAYBE_SECRET.test(raw) ? maskSecretFields(message) : raw);
    }
    if (body.length > MAX_TEXT) body = `${body.slice(0, MAX_TEXT)}… (${bytes} bytes, truncated)`;
    const entry: TranscriptEntry = { ...partial, seq: this.seq++, bytes, text: body };
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
    if (this.pendingRequests.size > MAX_ENTRIES) this.pendingRequests.delete(this.pendingRequests.keys().next().value!);
    for (const listener of this.listeners) listener(entry);
  }
}
