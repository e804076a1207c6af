import { AppError } from '../../../shared/errors';
import type { PolicyVerdict, ToolEntry } from '../../../shared/registry';

/**
 * Why the pipeline refuses a call because of the lockfile: a rejected definition never runs; a
 * held one runs only when the caller names the hash it reviewed (the console's review dialog sends
 * it after showing the diff), so a definition that changed again after the review is refused too.
 */
export function reviewRefusal(entry: ToolEntry, verdict: PolicyVerdict, reviewedHash: string | undefined): AppError | undefined {
  const hold = verdict.hold;
  if (!hold) return undefined;
  const source = hold.source;
  if (hold.state === 'rejected') {
    return new AppError('PolicyDenied', `${entry.name} is denied: ${hold.reason}. Approve it to allow it (tooldeck lock approve ${source} ${entry.toolName}).`);
  }
  if (reviewedHash === hold.hash) return undefined;
  const stale = reviewedHash !== undefined ? ` The definition you reviewed (${reviewedHash.slice(0, 19)}…) is no longer the current one (${hold.hash.slice(0, 19)}…).` : '';
  return new AppError(
    'PolicyDenied',
    `${entry.name} is held for review: ${hold.reason}.${stale} Review it (tooldeck lock diff ${source}) and approve it (tooldeck lock approve ${source} ${entry.toolName}), or confirm this definition in the console.`,
  );
}
