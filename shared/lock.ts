import { z } from 'zod';

/**
 * Tool-definition trust: per tool a canonical hash of its definition (RFC 8785 JSON, SHA-256), the
 * workspace lockfile `tooldeck.lock` that pins approved hashes per source, the review state of
 * every tool against it, revisions of each source's definitions, diffs, and linter findings.
 */

export const LOCK_FILE_NAME = 'tooldeck.lock';
/** The rule name a held tool's verdict carries, so views can link it to the lockfile. */
export const LOCK_RULE_NAME = 'tooldeck.lock';

export const DefinitionHash = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'expected sha256:<64 lowercase hex digits>');
export type DefinitionHash = z.infer<typeof DefinitionHash>;

/** The parts of a tool that are hashed: what a model reads and what its arguments must satisfy. */
export const ToolDefinition = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/** What a source with no entry in the lockfile gets: its first definitions approved (the default), or every tool held. */
export const NewSourcesPolicy = z.enum(['trust-on-first-use', 'hold']);
export type NewSourcesPolicy = z.infer<typeof NewSourcesPolicy>;

/** `approved`: the lock has this hash. The others are held (rejected: refused outright). */
export const ReviewState = z.enum(['approved', 'new', 'changed', 'renamed', 'rejected']);
export type ReviewState = z.infer<typeof ReviewState>;

/** The fields of a definition that differ from the approved one; `version` is a tools.v1 tool's call version. */
export const DefinitionField = z.enum(['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'version']);
export type DefinitionField = z.infer<typeof DefinitionField>;

/**
 * Why a registry entry may not run as is: it is new, changed or renamed since the lock approved its
 * source (the pipeline runs it only when the caller confirms this very hash), or its definition was
 * rejected (never runs).
 */
export const ToolHold = z.object({
  /** `mcp:everything`. */
  source: z.string(),
  tool: z.string(),
  state: ReviewState.exclude(['approved']),
  hash: DefinitionHash,
  approvedHash: DefinitionHash.optional(),
  previousName: z.string().optional(),
  /** Empty when the approved definition is not in this machine's history (only its hash is known). */
  changes: z.array(DefinitionField),
  /** One sentence, e.g. "its description and inputSchema changed since tooldeck.lock approved it". */
  reason: z.string(),
});
export type ToolHold = z.infer<typeof ToolHold>;

export const ToolReview = z.object({
  tool: z.string(),
  state: ReviewState,
  hash: DefinitionHash,
  body: DefinitionHash,
  approvedHash: DefinitionHash.optional(),
  previousName: z.string().optional(),
  changes: z.array(DefinitionField),
  /** tools.v1: the version calls carry now, and the one the lock approved. */
  version: z.string().optional(),
  lockedVersion: z.string().optional(),
});
export type ToolReview = z.infer<typeof ToolReview>;

export const SourceReview = z.object({
  /** `mcp:everything`, `a2a:planner`, `http:weather`, `grpc:tools`. */
  source: z.string(),
  /** The lockfile has an entry for it. */
  locked: z.boolean(),
  /** Its current definitions are known (it is connected, or was listed in this process). */
  live: z.boolean(),
  tools: z.array(ToolReview),
  /** Approved tools the source no longer lists (their names, or renamed away). */
  removed: z.array(z.object({ tool: z.string(), hash: DefinitionHash, renamedTo: z.string().optional() })),
  /** Tools that are not approved (new, changed, renamed, rejected). */
  held: z.number().int().min(0),
  /** The number of its newest stored revision (per source, 1 = the first set it listed). */
  revision: z.number().int().optional(),
  /**
   * Where the Server Card (SEP-2127, draft) it was installed with disagrees with what it lists:
   * tools it lists that the card does not declare, and tools the card declares that it does not list.
   */
  card: z.object({ declared: z.number().int(), undeclared: z.array(z.string()), missing: z.array(z.string()) }).optional(),
});
export type SourceReview = z.infer<typeof SourceReview>;

export const LockStatus = z.object({
  /** Absolute path of the lockfile in the workspace folder. */
  file: z.string(),
  exists: z.boolean(),
  /** A lockfile that cannot be read holds every tool (nothing is trusted on a broken lock). */
  error: z.string().optional(),
  newSources: NewSourcesPolicy,
  sources: z.array(SourceReview),
});
export type LockStatus = z.infer<typeof LockStatus>;

export const RevisionSummary = z.object({
  /** Numbered per source: 1 is the first set the source listed. */
  id: z.number().int(),
  source: z.string(),
  setHash: DefinitionHash,
  /** When this set was first seen, and last seen (epoch ms). */
  seenAt: z.number(),
  lastSeenAt: z.number(),
  toolCount: z.number().int(),
  /** Compared with the revision before it. */
  added: z.number().int(),
  removed: z.number().int(),
  renamed: z.number().int(),
  changed: z.number().int(),
  /** An earlier revision with the very same set (a server that went back). */
  sameAs: z.number().int().optional(),
  /** This set is exactly what the lock approves. */
  approved: z.boolean(),
});
export type RevisionSummary = z.infer<typeof RevisionSummary>;

export const TextDiffPart = z.object({ op: z.enum(['=', '+', '-']), text: z.string() });
export type TextDiffPart = z.infer<typeof TextDiffPart>;

export const SchemaChange = z.object({
  /** JSON Pointer into the schema, `''` for the root. */
  path: z.string(),
  kind: z.enum(['added', 'removed', 'changed']),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
});
export type SchemaChange = z.infer<typeof SchemaChange>;

export const ToolDiff = z.object({
  change: z.enum(['added', 'removed', 'renamed', 'changed', 'unchanged']),
  name: z.string(),
  previousName: z.string().optional(),
  fields: z.array(DefinitionField),
  before: ToolDefinition.optional(),
  after: ToolDefinition.optional(),
  beforeHash: DefinitionHash.optional(),
  afterHash: DefinitionHash.optional(),
  /** Only the hash of one side is known (an approval made on another machine). */
  beforeUnknown: z.boolean().optional(),
  inputSchema: z.array(SchemaChange),
  outputSchema: z.array(SchemaChange),
  /** Character-level; render each part through revealText so invisible changes show. */
  description: z.array(TextDiffPart).optional(),
  title: z.array(TextDiffPart).optional(),
  version: z.object({ before: z.string().optional(), after: z.string().optional() }).optional(),
});
export type ToolDiff = z.infer<typeof ToolDiff>;

/** `approved`: what the lockfile approves; `current`: the live definitions; a number: the source's revision of that number. */
export const RevisionRef = z.union([z.literal('approved'), z.literal('current'), z.number().int().positive()]);
export type RevisionRef = z.infer<typeof RevisionRef>;

export const DefinitionDiff = z.object({
  source: z.string(),
  from: RevisionRef,
  to: RevisionRef,
  tools: z.array(ToolDiff),
  counts: z.object({ added: z.number(), removed: z.number(), renamed: z.number(), changed: z.number(), unchanged: z.number() }),
});
export type DefinitionDiff = z.infer<typeof DefinitionDiff>;

export const CompareInput = z.object({ source: z.string().min(1), from: RevisionRef.default('approved'), to: RevisionRef.default('current') });
export type CompareInput = z.input<typeof CompareInput>;

export const ReviewDecisionInput = z.object({
  source: z.string().min(1),
  /** Omitted or empty: every tool of the source. */
  tools: z.array(z.string()).optional(),
  /** Approve exactly these hashes (what the reviewer saw); a definition that changed since is refused. */
  hashes: z.record(z.string(), DefinitionHash).optional(),
});
export type ReviewDecisionInput = z.infer<typeof ReviewDecisionInput>;

export const LintSeverity = z.enum(['high', 'medium', 'low']);
export type LintSeverity = z.infer<typeof LintSeverity>;

export const LintFinding = z.object({
  /** Stable rule id, e.g. `tag-characters`. */
  rule: z.string(),
  severity: LintSeverity,
  /** The tool's name at its source. */
  tool: z.string(),
  /** The source (`mcp:everything`), when findings of several sources are listed together. */
  source: z.string().optional(),
  /** Where: `name`, `title`, `description`, or a JSON Pointer into a schema (`inputSchema/properties/note/description`). */
  location: z.string(),
  message: z.string(),
  /** The offending text with hidden characters spelled out, cut to a readable length. */
  excerpt: z.string().optional(),
});
export type LintFinding = z.infer<typeof LintFinding>;

export const LintRuleInfo = z.object({ id: z.string(), severity: LintSeverity, description: z.string() });
export type LintRuleInfo = z.infer<typeof LintRuleInfo>;
