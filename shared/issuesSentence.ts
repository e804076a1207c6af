/** The part of a zod issue a person reads. */
export interface IssueLike {
  path: readonly PropertyKey[];
  message: string;
}

const MAX_ISSUES = 5;
const MAX_MESSAGE_CHARS = 300;

/** `a.b[2]`; a path that starts at an index is the subject's: `input[0].uri`. */
function issuePath(path: readonly PropertyKey[], subject: string): string {
  const start = typeof path[0] === 'number' ? subject : '';
  return path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), start);
}

/**
 * Validation issues as one line, `url: Enter an http:// or https:// URL; timeoutMs: Too small…`,
 * at most five of them and each cut to a few hundred characters — never zod's JSON dump of issues.
 */
export function issuesSentence(issues: readonly IssueLike[], subject = 'input'): string {
  if (issues.length === 0) return `Invalid ${subject}.`;
  const parts = issues.slice(0, MAX_ISSUES).map((issue) => {
    const message = issue.message.length > MAX_MESSAGE_CHARS ? `${issue.message.slice(0, MAX_MESSAGE_CHARS)}…` : issue.message;
    return `${issuePath(issue.path, subject) || subject}: ${message.replace(/\s*\n\s*/g, ' ')}`;
  });
  const more = issues.length > MAX_ISSUES ? ` (and ${issues.length - MAX_ISSUES} more)` : '';
  return `${parts.join('; ')}${more}`;
}

/** A ZodError (or anything shaped like one) — without importing zod's classes where they may differ. */
export function validationIssues(error: unknown): readonly IssueLike[] | undefined {
  // A procedure called in process (tRPC's createCaller) wraps the schema's error as its cause.
  const refused = error as { issues?: unknown; cause?: { issues?: unknown } } | null;
  const issues = refused?.issues ?? refused?.cause?.issues;
  return Array.isArray(issues) && issues.every((issue) => typeof (issue as IssueLike)?.message === 'string' && Array.isArray((issue as IssueLike).path)) ? (issues as IssueLike[]) : undefined;
}
