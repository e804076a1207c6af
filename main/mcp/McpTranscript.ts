import type { TranscriptEntry } from '../../shared/mcp';
import { SecretRedactor } from '../platform/SecretRedactor';
import { hasLargeString, jsonByteLength } from '../registry/jsonByteLength';
import { maskSecretFields, MAYBE_SECRET } from '../registry/recordedArguments';
import { Emitter } from '../platform/Emitter';

const MAX_ENTRIES = 2_000;
const MAX_TEXT = 16_384;

type JsonRpcLike = { id?: string | number; method?: string; result?: unknown; error?: unknown };

/**
 * Every JSON-RPC message of one server, in order, with timestamps and request latency. Secrets are
 * masked before anything is stored — credential-named fields, and every value the redactor knows
 * (the console's stored secrets) — so an export or a screenshot of the transcript is safe.
 */
export class McpTranscript {
  /** The newest MAX_ENTRIES entries in a ring (no array shifting per message: this runs twice per call). */
  private readonly ring: (TranscriptEntry | undefined)[] = new Array(MAX_ENTRIES);
  private head = 0;
  private size = 0;
  private readonly pendingRequests = new Map<string | number, { at: number; method: string }>();
  private readonly newEntries = new Emitter<TranscriptEntry>();
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
    return this.entries().filter((e) => e.seq > sinceSeq);
  }

  /** Entries between two instants, e.g. the traffic of one tool call. */
  slice(fromMs: number, toMs: number): TranscriptEntry[] {
    return this.entries().filter((e) => e.at >= fromMs && e.at <= toMs);
  }

  onEntry(listener: (entry: TranscriptEntry) => void): () => void {
    return this.newEntries.on(listener);
  }

  clear() {
    this.unsettled.length = 0;
    this.ring.fill(undefined);
    this.head = 0;
    this.size = 0;
    this.pendingRequests.clear();
  }

  /** JSON Lines, one entry per line. */
  export(): string {
    const entries = this.entries();
    return entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : '');
  }

  /** Oldest first. */
  private entries(): TranscriptEntry[] {
    if (this.unsettled.length) this.settle();
    const out: TranscriptEntry[] = new Array(this.size);
    const start = (this.head - this.size + MAX_ENTRIES) % MAX_ENTRIES;
    for (let i = 0; i < this.size; i++) out[i] = this.ring[(start + i) % MAX_ENTRIES]!;
    return out;
  }

  private push(partial: Omit<TranscriptEntry, 'seq' | 'bytes' | 'text'>, message: unknown, text?: string) {
    const entry: TranscriptEntry = { ...partial, seq: this.seq++, bytes: 0, text: '' };
    this.ring[this.head] = entry;
    this.head = (this.head + 1) % MAX_ENTRIES;
    if (this.size < MAX_ENTRIES) this.size++;
    if (this.pendingRequests.size > MAX_ENTRIES) this.pendingRequests.delete(this.pendingRequests.keys().next().value!);
    if (text !== undefined) {
      this.fill(entry, text, Buffer.byteLength(text));
      this.announce(entry);
      return;
    }
    // Serializing and masking a message is the transcript's main cost, and it sits on every call's
    // path: it is done right after, in the same turn's check phase, while the server is still
    // working (or for the answer, while the caller moves on). Every read settles it first.
    this.unsettled.push({ entry, message });
    this.settleSoon ??= setImmediate(() => this.settle());
  }

  private readonly unsettled: { entry: TranscriptEntry; message: unknown }[] = [];
  private settleSoon: NodeJS.Immediate | undefined;

  private settle() {
    if (this.settleSoon) clearImmediate(this.settleSoon);
    this.settleSoon = undefined;
    for (const { entry, message } of this.unsettled.splice(0)) {
      if (hasLargeString(message)) {
        // A large result is shown with its long strings cut, and measured without being copied.
        const cut = JSON.stringify(message, (_key, value: unknown) => (typeof value === 'string' && value.length > MAX_TEXT / 4 ? `${value.slice(0, MAX_TEXT / 4)}… (${value.length} characters)` : value));
        this.fill(entry, this.redactor.text(cut ?? ''), jsonByteLength(message));
      } else {
        const raw = JSON.stringify(message) ?? '';
        // Most messages carry no credential-named field: re-serialize only when a cheap scan says maybe.
        this.fill(entry, this.redactor.text(MAYBE_SECRET.test(raw) ? maskSecretFields(message) : raw), Buffer.byteLength(raw));
      }
      this.announce(entry);
    }
  }

  private fill(entry: TranscriptEntry, body: string, bytes: number) {
    entry.bytes = bytes;
    entry.text = body.length > MAX_TEXT ? `${body.slice(0, MAX_TEXT)}… (${bytes} bytes, truncated)` : body;
  }

  private announce(entry: TranscriptEntry) {
    this.newEntries.emit(entry);
  }
}
