import type { Logger } from '../../main/platform/Logger';
import type { ToolApproval } from '../../shared/approvals';
import { reasonOf } from '../../shared/errors';
import type { DesktopElectron } from './DesktopElectron';

/** What the notices read: the core's ApprovalBook. */
export interface ApprovalFeed {
  list(): Promise<ToolApproval[]>;
  onChange(listener: () => void): () => void;
}

export interface ApprovalNoticesOptions {
  approvals: ApprovalFeed;
  electron: Pick<DesktopElectron, 'Notification'>;
  platform: NodeJS.Platform;
  /** A notice was clicked: show the Approvals inbox. */
  open(): void;
  logger: Logger;
}

/** Past this many new approvals at once, one notice counts the rest instead of one each. */
const MAX_NOTICES_AT_ONCE = 3;

/**
 * A desktop notification for each call newly held for approval — whichever process holds it (the
 * gateway runs apart from the app) — so the operator hears of it without watching the console.
 * Approvals already waiting when the app starts are not announced (the navigation shows their count).
 * Text comes from agents: it is cut short, control characters go, and on Linux, where notification
 * daemons read the body as markup, it is escaped.
 */
export function announceNewApprovals(options: ApprovalNoticesOptions): { stop(): void; settled(): Promise<void> } {
  const { electron, platform, logger } = options;
  let seen: Set<string> | undefined;
  let running: Promise<void> = Promise.resolve();
  let again = false;
  let stopped = false;

  const refresh = async () => {
    const approvals = await options.approvals.list();
    const pending = approvals.filter((approval) => approval.status.phase === 'Pending');
    const fresh = seen ? pending.filter((approval) => !seen!.has(approval.metadata.name)) : [];
    // Only names still listed are remembered, so the set stays as small as the folder.
    seen = new Set(approvals.map((approval) => approval.metadata.name));
    if (stopped || fresh.length === 0 || !electron.Notification.isSupported()) return;
    const shown = fresh.length > MAX_NOTICES_AT_ONCE ? fresh.slice(0, MAX_NOTICES_AT_ONCE - 1) : fresh;
    for (const approval of shown) {
      show(`${plain(approval.spec.agent, 60)} waits for your approval`, `${plain(approval.spec.tool, 100)}${approval.binding.risk ? ` (risk: ${plain(approval.binding.risk, 20)})` : ''}: ${plain(approval.spec.reason, 160)}`);
    }
    if (shown.length < fresh.length) show(`${fresh.length - shown.length} more calls wait for your approval`, 'Open Approvals to decide.');
  };

  const show = (title: string, body: string) => {
    const notice = new electron.Notification({ title: markupSafe(title, platform), body: markupSafe(body, platform) });
    notice.on('click', () => options.open());
    notice.show();
  };

  // One refresh at a time; changes during one are folded into one more.
  const schedule = () => {
    if (stopped) return;
    if (again) return;
    again = true;
    running = running.then(async () => {
      again = false;
      await refresh().catch((error: unknown) => logger.warn('approval notices not refreshed', { error: reasonOf(error) }));
    });
  };

  const unsubscribe = options.approvals.onChange(schedule);
  schedule();
  return {
    stop() {
      stopped = true;
      unsubscribe();
    },
    settled: () => running,
  };
}

// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/** One line of at most `max` characters, without control or direction-changing characters. */
function plain(text: string, max: number): string {
  const line = text.replace(CONTROL, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Linux notification daemons may render `<b>`, `<a href>` and `<img>` in a body: an agent's text shows as text. */
function markupSafe(text: string, platform: NodeJS.Platform): string {
  return platform === 'linux' ? text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : text;
}
