import { Emitter } from '../platform/Emitter';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ApprovalName, ToolApproval } from '../../shared/approvals';
import { AppError, reasonOf } from '../../shared/errors';
import type { InputLimit } from '../../shared/inputLimits';
import { writeFileAtomic, writeFileAtomicIfAbsent } from '../platform/atomicWrite';
import { systemClock, type Clock } from '../platform/Clock';
import { silentLogger, type Logger } from '../platform/Logger';
import { readBoundedText } from '../platform/readBounded';
import { watchFolder, type FolderWatch } from '../platform/watchFolder';
import type { ApprovalStore, HoldOptions, HoldRequest } from './ApprovalHolder';
import {
  approvalName,
  byInboxOrder,
  canceledRecord,
  checkedComment,
  checkedDecider,
  checkedName,
  concludeHold,
  DecisionRecord,
  DEFAULT_KEEP_DECIDED,
  iso,
  prepareHold,
  notFound,
  notPending,
  TOOLDECK_DECIDER,
  withDecision,
  type ApprovalVerdict,
} from './approvalRules';

export { DEFAULT_KEEP_DECIDED, MAX_COMMENT_LENGTH, MAX_DECIDER_LENGTH, TOOLDECK_DECIDER, type ApprovalVerdict } from './approvalRules';

/** The folder of the data dir that holds approvals: `<name>.json`, and `<name>.decision.json` once one is decided. */
export const APPROVALS_FOLDER = 'approvals';
const DECISION_SUFFIX = '.decision.json';
/** Which process holds a Pending approval: `{host, pid}`. Without it, nobody could tell an approval whose gateway crashed from one still held. */
const HOLDER_SUFFIX = '.holder.json';


/** The arguments of a call are capped by the way in's body limit (8 MiB by default); an approval file holds them once. */
const APPROVAL_FILE_LIMIT: InputLimit = { maxBytes: 32 * 1024 * 1024, what: 'an approval file' };
const DECISION_FILE_LIMIT: InputLimit = { maxBytes: 64 * 1024, what: 'an approval decision file' };



const HolderRecord = z.object({ host: z.string(), pid: z.number().int().positive() });

export interface ApprovalBookOptions {
  dataDir: string;
  clock?: Clock;
  logger?: Logger;
  /** Decided approvals kept for history (default DEFAULT_KEEP_DECIDED). */
  keepDecided?: number;
  /**
   * Follow the folder for approvals and decisions other processes write (default true). A process
   * that only lists or decides once (a CLI command) does not need to.
   */
  watch?: boolean;
  /**
   * The version of the rules in force now. An approval given while the rules changed under the
   * held call does not let it run: the call must be judged again.
   */
  currentPolicyVersion?: () => string | undefined;
}

/** A call held in this process. */
interface Waiter {
  approval: ToolApproval;
  request: HoldRequest;
  /** Settles the hold once; later calls do nothing. */
  finish(record: DecisionRecord): Promise<void>;
}

/**
 * Approvals in the data dir, one file each, so any process on the same data dir — the gateway that
 * holds a call, the console, `tooldeck approvals` — lists and decides them. The holding process
 * follows the folder and wakes its held call when a decision file appears; a person's decision,
 * expiry and cancellation race through one create-if-absent file, so exactly one of them ends an
 * approval and every later decider gets a conflict.
 */
export class ApprovalBook implements ApprovalStore {
  readonly folder: string;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly keepDecided: number;
  private readonly waiters = new Map<string, Waiter>();
  private readonly changes = new Emitter((error) => this.logger.warn('approval listener failed', { error: reasonOf(error) }));
  private readonly watcher?: FolderWatch;
  /** Parsed approval files by name, reused while the file is unchanged (list() runs on every change). */
  private readonly cache = new Map<string, { stamp: string; approval: ToolApproval }>();
  private readonly decisionCache = new Map<string, { stamp: string; record: DecisionRecord }>();
  /** Files already reported as unreadable, so a bad file is logged once, not on every list. */
  private readonly reported = new Set<string>();
  private readonly work = new Set<Promise<unknown>>();
  private emitScheduled = false;
  private closed = false;

  constructor(private readonly options: ApprovalBookOptions) {
    this.folder = join(options.dataDir, APPROVALS_FOLDER);
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.keepDecided = options.keepDecided ?? DEFAULT_KEEP_DECIDED;
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    if (options.watch !== false) {
      this.watcher = watchFolder(this.folder, {
        onEvent: (file) => this.folderChanged(file),
        onFallback: (error) => this.logger.warn('approvals folder is polled: it cannot be watched', { folder: this.folder, error: error.message }),
      });
    }
  }

  hold(request: HoldRequest, options: HoldOptions = {}): Promise<ToolApproval> {
    let prepared: ReturnType<typeof prepareHold>;
    try {
      prepared = prepareHold(request, options.signal, this.closed, this.clock.now());
    } catch (error) {
      return Promise.reject(error);
    }
    const { approval, ttlMs } = prepared;
    return new Promise<ToolApproval>((resolve, reject) => {
      let finished = false;
      let cancelTimer = () => {};
      const onAbort = () => void this.end(approval.metadata.name, canceledRecord(this.clock.now(), reasonOf(options.signal?.reason, 'the call was canceled')));
      const waiter: Waiter = {
        approval,
        request,
        finish: async (record) => {
          if (finished) return;
          finished = true;
          this.waiters.delete(approval.metadata.name);
          cancelTimer();
          options.signal?.removeEventListener('abort', onAbort);
          try {
            resolve(await this.conclude(waiter, record));
          } catch (error) {
            reject(error);
          }
        },
      };
      const publish = async () => {
        // A random suffix makes a clash unlikely; an existing approval is never replaced.
        for (let attempt = 0; ; attempt++) {
          this.waiters.set(approval.metadata.name, waiter);
          const published = await writeFileAtomicIfAbsent(this.approvalPath(approval.metadata.name), serialize(approval)).catch((error: unknown) => {
            this.waiters.delete(approval.metadata.name);
            throw error;
          });
          if (published) {
            // Written after the approval, so an approval never gets another's holder; until then it counts as held.
            await writeFileAtomic(this.holderPath(approval.metadata.name), serialize({ host: hostname(), pid: process.pid })).catch((error: unknown) =>
              this.logger.warn('approval holder not recorded: it counts as held until it ends', { name: approval.metadata.name, error: reasonOf(error) }),
            );
            return;
          }
          // Ended meanwhile (the book closed and wrote the file's end itself).
          if (finished) return;
          this.waiters.delete(approval.metadata.name);
          if (attempt >= 4) throw new AppError('Internal', `Could not find a free approval name in ${this.folder}.`);
          approval.metadata.name = approvalName(request.agent, request.tool);
        }
      };
      this.track(
        publish().then(
          () => {
            // Ended while its file was being written (the book closed): nothing left to arm.
            if (finished) return;
            cancelTimer = this.clock.setTimeout(() => void this.end(approval.metadata.name, { phase: 'Expired', decided_at: iso(this.clock.now()) }), ttlMs);
            options.signal?.addEventListener('abort', onAbort, { once: true });
            this.changed();
            options.onPending?.(approval);
            // The signal may have fired, or a decision been written, while the file was being published.
            if (options.signal?.aborted) onAbort();
            else void this.check(approval.metadata.name);
          },
          (error: unknown) => {
            finished = true;
            reject(error instanceof AppError ? error : new AppError('Internal', `The call could not be held for approval: ${reasonOf(error)}`, { cause: error }));
          },
        ),
      );
    });
  }

  /** Every approval, Pending ones first (soonest to expire first), then decided ones, newest first. */
  async list(): Promise<ToolApproval[]> {
    const files = await this.files();
    const approvals: ToolApproval[] = [];
    await Promise.all(
      files.approvals.map(async (name) => {
        try {
          approvals.push(await this.read(name, files.decided.has(name)));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
          this.reportOnce(name, error);
        }
      }),
    );
    return approvals.sort(byInboxOrder);
  }

  /** One approval as it stands now; NotFound when there is none by that name. */
  async get(name: string): Promise<ToolApproval> {
    const checked = checkedName(name);
    try {
      return await this.read(checked);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(checked);
      throw error;
    }
  }

  /**
   * Approves or denies a Pending approval. The first decision written wins, in any process; an
   * approval that is no longer Pending (decided, expired, canceled) is a conflict: AlreadyExists
   * with step `decided`, saying how it ended.
   */
  async decide(name: string, verdict: ApprovalVerdict, decidedBy: string, comment?: string): Promise<ToolApproval> {
    const checked = checkedName(name);
    const decider = checkedDecider(decidedBy);
    const text = checkedComment(comment);
    const current = await this.get(checked);
    if (current.status.phase !== 'Pending') {
      // Expired by the clock with no holder left to write it: written now, so every reader agrees.
      if (current.status.phase === 'Expired' && !(await this.readDecision(checked))) {
        await this.publish(checked, { phase: 'Expired', decided_at: current.status.expires_at });
        await this.check(checked);
      }
      throw notPending(checked, current.status);
    }
    const record: DecisionRecord = {
      phase: verdict === 'approve' ? 'Approved' : 'Denied',
      decided_by: decider,
      decided_at: iso(this.clock.now()),
      ...(text ? { comment: text } : {}),
    };
    if (!(await this.publish(checked, record))) throw notPending(checked, (await this.get(checked)).status);
    this.changed();
    // A call held in this process is woken at once rather than by the folder watch.
    await this.check(checked);
    return withDecision(current, record);
  }

  /** Told after any change to any approval (this process's or another's): read list() again. Returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  /** Stops following the folder; calls still held here end Denied (canceled: Tooldeck stopped) and never run. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    await Promise.all([...this.waiters.keys()].map((name) => this.end(name, canceledRecord(this.clock.now(), 'Tooldeck stopped'))));
    while (this.work.size) await Promise.allSettled([...this.work]);
    this.changes.clear();
  }

  /** Resolves once every write this book started has finished: for tests and orderly shutdown. */
  async settled(): Promise<void> {
    while (this.work.size) await Promise.allSettled([...this.work]);
  }

  private approvalPath(name: string): string {
    return join(this.folder, `${name}.json`);
  }

  private decisionPath(name: string): string {
    return join(this.folder, `${name}${DECISION_SUFFIX}`);
  }

  private holderPath(name: string): string {
    return join(this.folder, `${name}${HOLDER_SUFFIX}`);
  }

  /**
   * Why nobody holds a Pending approval any more — its process (on this machine) has ended, as when
   * a gateway crashed — or undefined while it may still be held (another machine's process, or no
   * holder file to tell). Approving it could run nothing, so it ends instead.
   */
  private async holderGone(name: string): Promise<string | undefined> {
    let holder: z.infer<typeof HolderRecord>;
    try {
      const parsed = HolderRecord.safeParse(JSON.parse(await readBoundedText(this.holderPath(name), { ...DECISION_FILE_LIMIT, regularOnly: true })));
      if (!parsed.success) return undefined;
      holder = parsed.data;
    } catch {
      return undefined;
    }
    if (holder.host !== hostname() || holder.pid === process.pid) return undefined;
    try {
      process.kill(holder.pid, 0);
      return undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') return undefined;
    }
    return `the process that held the call (pid ${holder.pid}) ended before anyone decided`;
  }

  /** Ends a held approval the way the holder does (expiry, cancellation): unless a decision was written first, which then counts. */
  private async end(name: string, record: DecisionRecord): Promise<void> {
    const waiter = this.waiters.get(name);
    if (!waiter) return;
    const published = await this.publish(name, record).catch((error: unknown) => {
      this.logger.error('approval end not written', { name, error: reasonOf(error) });
      return false;
    });
    // Lost the race: the decision that won is the one the held call ends by. A write that failed
    // leaves the call held, and failing closed it ends Denied.
    const winner = published ? record : ((await this.readDecision(name)) ?? { ...canceledRecord(this.clock.now(), `the approval's end could not be written to ${this.folder}`) });
    await waiter.finish(winner);
  }

  /** A held call whose decision file has appeared ends by it. */
  private async check(name: string): Promise<void> {
    const waiter = this.waiters.get(name);
    if (!waiter) return;
    const record = await this.readDecision(name);
    if (record) await waiter.finish(record);
  }

  /** Writes the held approval's end into its file, and settles the call: the approved approval, or the sentence why not. */
  private async conclude(waiter: Waiter, record: DecisionRecord): Promise<ToolApproval> {
    const name = waiter.approval.metadata.name;
    // Read before the holder rewrites the file: the approval a person decided must be the one made for this call.
    const onDisk = await this.readApproval(name).catch(() => undefined);
    const ended = withDecision(waiter.approval, record);
    await this.track(
      writeFileAtomic(this.approvalPath(name), serialize(ended))
        .then(() => rm(this.holderPath(name), { force: true }))
        .catch((error: unknown) => this.logger.error('approval status not written', { name, error: reasonOf(error) })),
    );
    this.changed();
    void this.track(this.prune().catch((error: unknown) => this.logger.warn('old approvals not removed', { error: reasonOf(error) })));
    if (record.phase === 'Approved' && onDisk && (onDisk.binding.input_digest !== waiter.approval.binding.input_digest || onDisk.binding.policy_version !== waiter.approval.binding.policy_version)) {
      this.logger.warn('approval file no longer matches its held call', { name });
    }
    concludeHold(waiter.approval, waiter.request, record, onDisk, this.options.currentPolicyVersion?.(), 'file');
    return ended;
  }

  /** Publishes how an approval ended, unless an end was published first: true when this one is it. */
  private publish(name: string, record: DecisionRecord): Promise<boolean> {
    return this.track(writeFileAtomicIfAbsent(this.decisionPath(name), serialize(record)));
  }

  private async files(): Promise<{ approvals: string[]; decided: Set<string> }> {
    const entries = await readdir(this.folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    const approvals: string[] = [];
    const decided = new Set<string>();
    for (const entry of entries) {
      if (entry.endsWith(DECISION_SUFFIX)) decided.add(entry.slice(0, -DECISION_SUFFIX.length));
      else if (entry.endsWith('.json') && ApprovalName.safeParse(entry.slice(0, -5)).success) approvals.push(entry.slice(0, -5));
    }
    return { approvals, decided };
  }

  /** The approval with its end applied: its decision file, else Expired once the clock passed its expiry. */
  private async read(name: string, maybeDecided = true): Promise<ToolApproval> {
    const approval = await this.readApproval(name);
    const record = maybeDecided ? await this.readDecision(name) : undefined;
    if (record) return withDecision(approval, record);
    if (approval.status.phase !== 'Pending') return approval;
    if (this.clock.now() >= Date.parse(approval.status.expires_at)) return { ...approval, status: { phase: 'Expired', expires_at: approval.status.expires_at } };
    const gone = await this.holderGone(name);
    if (!gone) return approval;
    // Ended for every reader at once, by the same create-if-absent as any decision.
    const ended = canceledRecord(this.clock.now(), gone);
    if (await this.publish(name, ended)) return withDecision(approval, ended);
    const winner = await this.readDecision(name);
    return winner ? withDecision(approval, winner) : approval;
  }

  private async readApproval(name: string): Promise<ToolApproval> {
    const path = this.approvalPath(name);
    const info = await stat(path);
    const stamp = `${info.ino}:${info.size}:${info.mtimeMs}`;
    const cached = this.cache.get(name);
    if (cached?.stamp === stamp) return cached.approval;
    const text = await readBoundedText(path, { ...APPROVAL_FILE_LIMIT, regularOnly: true });
    const parsed = ToolApproval.safeParse(parseJson(text, path));
    if (!parsed.success) throw new AppError('InvalidInput', `${path} is not a valid approval: ${issueText(parsed.error)}.`);
    if (parsed.data.metadata.name !== name) throw new AppError('InvalidInput', `${path} is not a valid approval: it names itself ${parsed.data.metadata.name}.`);
    this.cache.set(name, { stamp, approval: parsed.data });
    return parsed.data;
  }

  /**
   * The decision file, if one was written. One that cannot be read or is not a decision still means
   * somebody ended the approval: it counts as Denied (fail closed) and stays on disk as it is.
   */
  private async readDecision(name: string): Promise<DecisionRecord | undefined> {
    const path = this.decisionPath(name);
    let stamp: string;
    try {
      const info = await stat(path);
      stamp = `${info.ino}:${info.size}:${info.mtimeMs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      return this.unreadableDecision(path, error);
    }
    // Decisions are published once and never replaced: the inbox's history is read from memory.
    const cached = this.decisionCache.get(name);
    if (cached?.stamp === stamp) return cached.record;
    let json: unknown;
    try {
      json = parseJson(await readBoundedText(path, { ...DECISION_FILE_LIMIT, regularOnly: true }), path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      return this.unreadableDecision(path, error);
    }
    const parsed = DecisionRecord.safeParse(json);
    const record = parsed.success ? parsed.data : await this.unreadableDecision(path, new Error(`not a decision: ${issueText(parsed.error)}`));
    this.decisionCache.set(name, { stamp, record });
    return record;
  }

  private async unreadableDecision(path: string, error: unknown): Promise<DecisionRecord> {
    const when = await stat(path).then((info) => info.mtimeMs, () => this.clock.now());
    this.reportOnce(path, error);
    return {
      phase: 'Denied',
      decided_by: TOOLDECK_DECIDER,
      decided_at: iso(when),
      comment: `The decision file ${path} cannot be read (${reasonOf(error)}), so the call is denied rather than run on a decision nobody can read.`,
    };
  }

  /** Keeps the newest `keepDecided` ended approvals; Pending ones are never removed. */
  private async prune(): Promise<void> {
    const approvals = await this.list();
    const ended = approvals.filter((approval) => approval.status.phase !== 'Pending' && !this.waiters.has(approval.metadata.name));
    for (const approval of ended.slice(this.keepDecided)) {
      const name = approval.metadata.name;
      await rm(this.approvalPath(name), { force: true });
      await rm(this.decisionPath(name), { force: true });
      await rm(this.holderPath(name), { force: true });
      this.cache.delete(name);
      this.decisionCache.delete(name);
    }
  }

  private folderChanged(file: string | null) {
    if (file?.endsWith('.tmp')) return;
    if (file === null) for (const name of this.waiters.keys()) void this.check(name);
    else if (file.endsWith(DECISION_SUFFIX)) void this.check(file.slice(0, -DECISION_SUFFIX.length));
    this.changed();
  }

  /** Listeners hear once per burst of changes (one write is several folder events). */
  private changed() {
    if (this.emitScheduled || this.closed) return;
    this.emitScheduled = true;
    setImmediate(() => {
      this.emitScheduled = false;
      this.changes.emit();
    });
  }

  private reportOnce(key: string, error: unknown) {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.logger.warn('approval file skipped', { file: key, error: reasonOf(error) });
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.work.add(promise);
    void promise.finally(() => this.work.delete(promise)).catch(() => undefined);
    return promise;
  }
}
function serialize(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError('InvalidInput', `${path} is not JSON: ${reasonOf(error)}.`);
  }
}

function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'top level'}: ${issue.message}` : 'unreadable';
}

