import type { Verdict } from '../../../shared/registry';

/** Orloj's words for a verdict: what every view says, whatever the backend's own name for it. */
export type OrlojVerdictWord = 'allow' | 'approval_required' | 'deny';

const WORD: Record<Verdict, OrlojVerdictWord> = { allow: 'allow', confirm: 'approval_required', deny: 'deny' };

/**
 * The one place the console turns a verdict into words: Tooldeck's `confirm` is Orloj's
 * `approval_required`, the word the workspace's ToolPermissions are written with.
 */
export function verdictWord(verdict: Verdict): OrlojVerdictWord {
  return WORD[verdict];
}

/** Who a verdict is for, as a view names it: the operator at the console, or an agent by name. */
export function verdictFor(verdict: Verdict, caller: 'you' | { agent: string }): string {
  return `for ${caller === 'you' ? 'you' : caller.agent}: ${verdictWord(verdict)}`;
}

/**
 * A policy reason as the backend writes it (`everything-changes (permissions.yaml): read → confirm`,
 * `… → confirm` for a destructive hint or a held definition) in Orloj's words.
 */
export function reasonInOrlojWords(reason: string): string {
  return reason.replace(/→ confirm\b/g, '→ approval_required');
}
