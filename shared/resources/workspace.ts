import { z } from 'zod';
import { Diagnostic } from './diagnostics';
import { ResourceStatuses } from './statuses';

/** Workspace files larger than this are listed but not loaded (parsing 5 MB of YAML takes seconds). */
export const MAX_WORKSPACE_FILE_BYTES = 1024 * 1024;

/** Which files of the folder belong to the workspace: YAML files and Clawdapus descriptors. */
export const WORKSPACE_FILE = /(\.ya?ml|\.claw-describe\.json)$/i;

/** A path inside the workspace folder, `/`-separated: a .yaml/.yml file or a `<service>.claw-describe.json`. */
export const WorkspacePath = z
  .string()
  .min(1)
  .max(512)
  .refine((path) => !path.startsWith('/') && !/^[A-Za-z]:/.test(path) && !path.split(/[\\/]/).includes('..'), 'must be a relative path inside the workspace')
  .refine((path) => WORKSPACE_FILE.test(path), 'must end in .yaml or .yml (or be a <service>.claw-describe.json)');

/** Content version of a file (a hash of its bytes); null when the file does not exist. */
export const FileVersion = z.string().nullable();

export const ParsedDocument = z.object({
  index: z.number().int().min(0),
  /** 1-based line where the document starts. */
  line: z.number().int().min(1),
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  /** The document as written (JSON value), when it parsed. */
  object: z.unknown().optional(),
  /** No error diagnostics: it parsed, its kind is known and it follows its kind's rules. */
  valid: z.boolean(),
  diagnostics: z.array(Diagnostic),
});
export type ParsedDocument = z.infer<typeof ParsedDocument>;

export const WorkspaceFileSummary = z.object({
  path: z.string(),
  version: FileVersion,
  size: z.number().int(),
  documents: z.number().int(),
  errors: z.number().int(),
  warnings: z.number().int(),
  kinds: z.array(z.string()),
  tooLarge: z.boolean(),
});
export type WorkspaceFileSummary = z.infer<typeof WorkspaceFileSummary>;

export const WorkspaceFileView = WorkspaceFileSummary.extend({
  /** Absent when the file is too large or unreadable. */
  text: z.string().optional(),
  parsed: z.array(ParsedDocument),
  /** Every diagnostic of the file: syntax, rules, unknown kinds, duplicates across files. */
  diagnostics: z.array(Diagnostic),
});
export type WorkspaceFileView = z.infer<typeof WorkspaceFileView>;

export const WorkspaceListing = z.object({ dir: z.string(), files: z.array(WorkspaceFileSummary) });
export type WorkspaceListing = z.infer<typeof WorkspaceListing>;

export const ReadFileInput = z.object({ path: WorkspacePath });

const MAX_TEXT = MAX_WORKSPACE_FILE_BYTES;

export const ValidateTextInput = z.object({
  text: z.string().max(MAX_TEXT, `Text is over ${MAX_TEXT} characters; split it into smaller files`),
  /** The file the text belongs to: its name picks descriptor files; duplicates are checked against the other files. */
  path: WorkspacePath.optional(),
});
export type ValidateTextInput = z.infer<typeof ValidateTextInput>;

export const ValidateTextResult = z.object({ valid: z.boolean(), parsed: z.array(ParsedDocument), diagnostics: z.array(Diagnostic) });
export type ValidateTextResult = z.infer<typeof ValidateTextResult>;

export const DefaultsPreview = z.object({
  valid: z.boolean(),
  /** The objects as they will be stored, every default applied (invalid documents left out). */
  objects: z.array(z.unknown()),
  /** The same objects as multi-document YAML. */
  yaml: z.string(),
  diagnostics: z.array(Diagnostic),
});
export type DefaultsPreview = z.infer<typeof DefaultsPreview>;

export const SaveFileInput = z.object({
  path: WorkspacePath,
  text: z.string().max(MAX_TEXT, `Text is over ${MAX_TEXT} characters; split it into smaller files`),
  /** The version the text was based on (null: a new file). A file changed on disk since is not overwritten unless `force`. */
  expectedVersion: FileVersion,
  force: z.boolean().default(false),
});
export type SaveFileInput = z.input<typeof SaveFileInput>;

/** Sets (or with `remove`, deletes) the value at `path` of one document, keeping comments and key order. */
export const FieldEdit = z.object({
  document: z.number().int().min(0),
  path: z.array(z.union([z.string(), z.number().int().min(0)])).min(1),
  value: z.unknown().optional(),
  remove: z.boolean().optional(),
});
export type FieldEdit = z.infer<typeof FieldEdit>;

export const EditFileInput = z.object({ path: WorkspacePath, expectedVersion: z.string(), edits: z.array(FieldEdit).min(1) });
export type EditFileInput = z.infer<typeof EditFileInput>;

/**
 * Adds a tool to `spec.tool_filter.include` of the workspace McpServer named `server` (see
 * main/resources/admitTool.ts): the one way the console lets an excluded tool into the registry.
 */
export const AdmitToolInput = z.object({ server: z.string().min(1).max(64), tool: z.string().min(1).max(256) });
export type AdmitToolInput = z.infer<typeof AdmitToolInput>;

/** The file written, its new version, and the registry name the tool gets once the file is reconciled. */
export interface AdmitToolResult {
  file: string;
  version: string | null;
  registryName: string;
}

export const DeleteFileInput = z.object({ path: WorkspacePath, expectedVersion: z.string().optional() });
export type DeleteFileInput = z.infer<typeof DeleteFileInput>;

export const OpenFolderInput = z.object({ dir: z.string().min(1) });

/** What the watch subscription yields: the file list, which files changed since the last event, and the statuses. */
export const WorkspaceEvent = z.object({
  dir: z.string(),
  files: z.array(WorkspaceFileSummary),
  changed: z.array(z.string()),
  statuses: ResourceStatuses,
});
export type WorkspaceEvent = z.infer<typeof WorkspaceEvent>;
