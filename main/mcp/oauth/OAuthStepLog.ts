import { OAUTH_STEP_TITLES, type OAuthStep, type OAuthStepKind } from '../../../shared/oauth';
import { SECRET_PLACEHOLDER as MASK } from '../../../shared/secrets';
import { Emitter } from '../../platform/Emitter';

const MAX_STEPS = 100;

export type StepFields = Partial<Pick<OAuthStep, 'title' | 'method' | 'url' | 'httpStatus' | 'detail' | 'document' | 'error'>>;

/**
 * The ordered steps of one server's authorization flows, for the panel and the CLI. Documents are
 * masked on the way in (a registration response carries a client secret), and no step ever holds a
 * token: callers record token responses as summaries only.
 */
export class OAuthStepLog {
  private steps: OAuthStep[] = [];
  private seq = 0;
  private readonly changes = new Emitter();

  list(): OAuthStep[] {
    return this.steps.map((s) => ({ ...s }));
  }

  /** A new flow starts: the previous one's steps go, so the panel reads top to bottom. */
  reset() {
    this.steps = [];
    this.emit();
  }

  begin(kind: OAuthStepKind, fields: StepFields = {}): number {
    const step: OAuthStep = { seq: this.seq++, kind, title: OAUTH_STEP_TITLES[kind], status: 'pending', startedAt: Date.now(), ...clean(fields) };
    this.steps.push(step);
    if (this.steps.length > MAX_STEPS) this.steps.splice(0, this.steps.length - MAX_STEPS);
    this.emit();
    return step.seq;
  }

  ok(seq: number, fields: StepFields = {}) {
    this.finish(seq, 'ok', fields);
  }

  fail(seq: number, error: string, fields: StepFields = {}) {
    this.finish(seq, 'failed', { ...fields, error });
  }

  /** A step that completes at once (a callback arrived, a registration was reused). */
  record(kind: OAuthStepKind, status: 'ok' | 'failed', fields: StepFields = {}): number {
    const seq = this.begin(kind, fields);
    this.finish(seq, status, fields);
    return seq;
  }

  /** The latest step of a kind, e.g. to mark metadata failed when the SDK rejects what was fetched. */
  latest(kind: OAuthStepKind): OAuthStep | undefined {
    for (let i = this.steps.length - 1; i >= 0; i--) if (this.steps[i]!.kind === kind) return this.steps[i];
    return undefined;
  }

  /** The seq the next step will get: a flow remembers it to tell its own steps from earlier ones. */
  get nextSeq(): number {
    return this.seq;
  }

  lastFailure(sinceSeq = 0): OAuthStep | undefined {
    for (let i = this.steps.length - 1; i >= 0 && this.steps[i]!.seq >= sinceSeq; i--) if (this.steps[i]!.status === 'failed') return { ...this.steps[i]! };
    return undefined;
  }

  /** Marks the latest step of `kind` failed (or adds a failed one when there is none). */
  failLatest(kind: OAuthStepKind, error: string) {
    const step = this.latest(kind);
    if (step) this.finish(step.seq, 'failed', { error });
    else this.record(kind, 'failed', { error });
  }

  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  private finish(seq: number, status: 'ok' | 'failed', fields: StepFields) {
    const step = this.steps.find((s) => s.seq === seq);
    if (!step) return;
    Object.assign(step, clean(fields), { status, endedAt: Date.now() });
    this.emit();
  }

  private emit() {
    this.changes.emit();
  }
}

function clean(fields: StepFields): StepFields {
  const out: StepFields = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  if (out.document !== undefined) out.document = maskDocument(out.document);
  return out;
}

/**
 * OAuth documents are full of keys like `token_endpoint` that the transcript's broad mask would
 * hide; only the fields that carry credentials are masked here.
 */
const CREDENTIAL_FIELDS = new Set(['client_secret', 'registration_access_token', 'access_token', 'refresh_token', 'id_token', 'code', 'code_verifier', 'assertion', 'client_assertion', 'subject_token']);

export function maskDocument(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskDocument);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, CREDENTIAL_FIELDS.has(k) && v !== undefined && v !== '' ? MASK : maskDocument(v)]));
  }
  return value;
}
