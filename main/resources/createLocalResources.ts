import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { AppError, launchConfirmationRequired } from '../../shared/errors';
import type { EditFileInput, SaveFileInput, WorkspaceFileView } from '../../shared/resources/workspace';
import type { GrpcSources } from '../grpc/GrpcSources';
import type { McpService } from '../mcp/McpService';
import type { Logger } from '../platform/Logger';
import { JsonFile } from '../platform/JsonFile';
import type { ToolPermission } from '../registry/policy/ToolPermission';
import type { PlaceholderContext } from './commandPlaceholders';
import { LaunchAllowList } from './LaunchAllowList';
import { LocalReconciler, type LaunchConfirmer } from './LocalReconciler';
import { launchLines } from './mcpServerConfig';
import type { ResourceToolLookup } from './resourcePolicy';
import { seedWorkspace } from './seedWorkspace';
import { parseResourceText } from './parseResourceText';
import { Workspace } from './Workspace';
import { silentLogger } from '../platform/Logger';

export interface LocalResourcesOptions {
  dataDir: string;
  mcp: McpService;
  /** Tools of type grpc become these sources. */
  grpc?: GrpcSources;
  logger: Logger;
  /** Open this folder instead of the one last opened (default `<dataDir>/workspace`). */
  workspaceDir?: string;
  /** Where the example files come from on first use (default: found next to the app). */
  examplesDir?: string;
  /** Seed a new default workspace with the examples (default true; tests that bring their own servers say no). */
  seedExamples?: boolean;
  /** Watch the folder for outside edits (default true). */
  watch?: boolean;
  placeholders?: PlaceholderContext;
  resyncIntervalMs?: number;
  /** Start, change and remove managed servers (default true); see LocalReconcilerOptions.manageServers. */
  manageServers?: boolean;
  /** See LocalReconcilerOptions.confirmLaunch (the CLI asks on a terminal). */
  confirmLaunch?: LaunchConfirmer;
}

/**
 * What a write or an open folder does with stdio command lines the folder's allow-list does not hold.
 * Lines in `confirmedLaunchLines` were shown to the user and confirmed: they join the allow-list.
 * Any other new line is refused (CONFIRM_LAUNCH_STEP, the lines in `details`) when
 * `requireLaunchConfirmation`; without it the write itself is the user's act (the desktop editor:
 * the user typed the line) and confirms the lines it adds. Lines already in the folder are left to
 * the reconciler, which starts none that is not confirmed.
 */
export interface LaunchGuard {
  requireLaunchConfirmation?: boolean;
  confirmedLaunchLines?: string[];
}

export interface LocalResources {
  readonly workspace: Workspace;
  /** Writes a file, after the launch guard. */
  save(input: SaveFileInput, guard?: LaunchGuard): Promise<WorkspaceFileView>;
  /** Field edits, after the launch guard. */
  edit(input: EditFileInput, guard?: LaunchGuard): Promise<WorkspaceFileView>;
  readonly reconciler: LocalReconciler;
  /** Pass to McpCatalogSync: Tool resources' policy and McpServer filters for MCP registry entries. */
  readonly toolConfig: ResourceToolLookup;
  /** Pass to InvocationPipeline: ToolPermission resources as the pipeline's permissions, read per call. */
  readonly permissions: () => ToolPermission[];
  /** Tool or ToolPermission resources changed: call McpCatalogSync.resyncAll(). */
  onPolicyChange(listener: () => void): () => void;
  /** Opens another folder as the workspace and remembers it, after the launch guard. */
  openFolder(dir: string, guard?: LaunchGuard): Promise<void>;
  /** The user confirmed these command lines of the open folder (each must be one an McpServer of it starts). */
  confirmLaunches(lines: readonly string[]): Promise<void>;
  readonly launchAllowList: LaunchAllowList;
  close(): Promise<void>;
}

const Settings = z.object({ workspaceDir: z.string().optional() });

/** `<dataDir>/resources.json`: the workspace folder last opened. */
const settingsFile = (dataDir: string) => new JsonFile(join(dataDir, 'resources.json'), Settings, () => ({}));

/**
 * The YAML workspace and its embedded (local) reconciler. Call after `mcp.init()`; connections
 * are made in the background, so start-up does not wait for any server.
 */
export async function createLocalResources(options: LocalResourcesOptions): Promise<LocalResources> {
  const settings = settingsFile(options.dataDir);
  const defaultDir = defaultWorkspaceDir(options.dataDir);
  let dir = resolve(options.workspaceDir ?? (await readSettings(settings)).workspaceDir ?? defaultDir);
  if (dir !== defaultDir && !existsSync(dir) && !options.workspaceDir) {
    options.logger.warn('the workspace folder last opened is gone; opening the default one', { dir });
    dir = defaultDir;
  }
  const launchAllowList = new LaunchAllowList(options.dataDir);
  if (dir === defaultDir && options.seedExamples === false) await mkdir(dir, { recursive: true });
  else if (dir === defaultDir && (await seedDefaultWorkspace(options.dataDir, options.examplesDir))) options.logger.info('workspace created with the examples', { dir });
  const workspace = new Workspace({ dir, logger: options.logger, watch: options.watch });
  await workspace.load();
  const reconciler = new LocalReconciler({
    workspace,
    mcp: options.mcp,
    grpc: options.grpc,
    logger: options.logger,
    placeholders: options.placeholders,
    resyncIntervalMs: options.resyncIntervalMs,
    manageServers: options.manageServers,
    launchAllowList,
    confirmLaunch: options.confirmLaunch,
  });
  reconciler.start();
  // A console follows confirmations the CLI writes, so a server waiting for one starts at once.
  if (options.watch !== false) launchAllowList.watch((error) => options.logger.warn('not watching the launch allow-list', { error: error.message }));
  options.mcp.setLaunchGate((config) => reconciler.launchRefusal(config));

  /**
   * Writes after the launch guard: the written text's lines that neither the folder's allow-list, nor
   * the folder as it is (the reconciler holds those back until confirmed), nor the guard's confirmed
   * lines hold are refused when the guard requires confirmation, and otherwise confirmed by the write.
   */
  const guarded = async <T>(write: (check: (path: string, text: string) => void) => Promise<T>, guard: LaunchGuard | undefined): Promise<T> => {
    const folder = workspace.dir;
    const known = [...(await launchAllowList.linesOf(folder)), ...launchLines(workspace.documents())];
    let confirmed: string[] = [];
    const result = await write((path, text) => {
      confirmed = linesToConfirm(launchLines(parseResourceText(text, { fileName: path })), known, guard);
    });
    await launchAllowList.confirm(folder, confirmed);
    return result;
  };

  return {
    workspace,
    save: (input, guard) => guarded((check) => workspace.save(input, check), guard),
    edit: (input, guard) => guarded((check) => workspace.edit(input, check), guard),
    reconciler,
    launchAllowList,
    toolConfig: reconciler.toolConfig,
    permissions: reconciler.permissions,
    onPolicyChange: (listener) => reconciler.onPolicyChange(listener),
    async openFolder(next, guard) {
      const folder = resolve(next);
      const preview = new Workspace({ dir: folder, logger: options.logger, watch: false });
      let confirmed: string[];
      try {
        await preview.load();
        // Opening a folder is not typing its lines: the guard always asks for the ones not confirmed.
        confirmed = linesToConfirm(launchLines(preview.documents()), await launchAllowList.linesOf(folder), { ...guard, requireLaunchConfirmation: true });
      } finally {
        preview.close();
      }
      await launchAllowList.confirm(folder, confirmed);
      await workspace.open(folder);
      await settings.write({ workspaceDir: workspace.dir });
    },
    async confirmLaunches(lines) {
      const declared = new Set(launchLines(workspace.documents()));
      const unknown = lines.filter((line) => !declared.has(line));
      if (unknown.length > 0) throw new AppError('InvalidInput', `No McpServer of ${workspace.dir} starts ${unknown.join(' ; ')} (the file may have changed): nothing was confirmed.`);
      await launchAllowList.confirm(workspace.dir, lines);
    },
    async close() {
      options.mcp.setLaunchGate(undefined);
      launchAllowList.close();
      workspace.close();
      await reconciler.stop();
    },
  };
}

/**
 * Of the `lines` about to be written or opened, those to add to the allow-list: the ones the user
 * confirmed, and (when the guard does not require confirmation) the new ones. A new line that is not
 * confirmed is refused with CONFIRM_LAUNCH_STEP when the guard requires confirmation.
 */
function linesToConfirm(lines: readonly string[], known: readonly string[], guard: LaunchGuard | undefined): string[] {
  const confirmed = guard?.confirmedLaunchLines ?? [];
  const unconfirmed = [...new Set(lines.filter((line) => !known.includes(line) && !confirmed.includes(line)))];
  if (unconfirmed.length > 0 && guard?.requireLaunchConfirmation) throw launchConfirmationRequired(unconfirmed);
  return [...unconfirmed, ...lines.filter((line) => confirmed.includes(line))];
}

/**
 * Seeds the default workspace with the examples on first use and confirms the command lines of
 * their servers: Tooldeck put them there from its own install, so the example runs without a prompt.
 * Returns whether it seeded.
 */
async function seedDefaultWorkspace(dataDir: string, examplesDir?: string): Promise<boolean> {
  const dir = defaultWorkspaceDir(dataDir);
  if (!(await seedWorkspace(dir, examplesDir))) return false;
  const seeded = new Workspace({ dir, logger: silentLogger, watch: false });
  try {
    await seeded.load();
    await new LaunchAllowList(dataDir).confirm(dir, launchLines(seeded.documents()));
  } finally {
    seeded.close();
  }
  return true;
}

export function defaultWorkspaceDir(dataDir: string): string {
  return join(dataDir, 'workspace');
}

/** The folder the app opens: the one last opened if it still exists, else the default (seeded on first use). */
export async function currentWorkspaceDir(dataDir: string, examplesDir?: string): Promise<string> {
  const stored = (await readSettings(settingsFile(dataDir))).workspaceDir;
  if (stored && existsSync(stored)) return stored;
  await seedDefaultWorkspace(dataDir, examplesDir);
  return defaultWorkspaceDir(dataDir);
}

/** A settings file that cannot be read or is damaged only forgets the folder: the default one opens. */
function readSettings(file: JsonFile<typeof Settings>): Promise<z.infer<typeof Settings>> {
  return file.read().catch(() => ({}));
}
