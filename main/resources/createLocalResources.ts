import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { launchConfirmationRequired } from '../../shared/errors';
import type { EditFileInput, SaveFileInput, WorkspaceFileView } from '../../shared/resources/workspace';
import type { GrpcSources } from '../grpc/GrpcSources';
import type { McpService } from '../mcp/McpService';
import type { Logger } from '../platform/Logger';
import { JsonFile } from '../platform/JsonFile';
import type { ToolPermission } from '../registry/policy/ToolPermission';
import type { PlaceholderContext } from './commandPlaceholders';
import { LocalReconciler } from './LocalReconciler';
import type { ResourceToolLookup } from './resourcePolicy';
import { seedWorkspace } from './seedWorkspace';
import type { McpServerObject } from './kinds/normalizeMcpServer';
import { parseResourceText } from './parseResourceText';
import { Workspace } from './Workspace';

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
}

/**
 * Browser mode: a change that would make the local target start a command the workspace does not
 * start yet (a new or changed stdio McpServer) needs that command line among the confirmed ones.
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
  if (dir === defaultDir && options.seedExamples === false) await mkdir(dir, { recursive: true });
  else if (dir === defaultDir && (await seedWorkspace(dir, options.examplesDir))) options.logger.info('workspace created with the examples', { dir });
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
  });
  reconciler.start();

  type Documents = Array<{ identity?: { kind: string; name: string }; stored?: Record<string, unknown>; valid?: boolean }>;
  const launches = (documents: Documents) =>
    documents.flatMap((doc) => {
      if (doc.identity?.kind !== 'McpServer' || doc.valid === false || !doc.stored) return [];
      const launch = reconciler.launchOf(doc.identity.name, (doc.stored as unknown as McpServerObject).spec);
      return launch ? [launch] : [];
    });
  const guardLaunches = (documents: Documents, guard: LaunchGuard | undefined) => {
    if (!guard?.requireLaunchConfirmation) return;
    // Compared with the values behind the line's *** (every environment value is sealed): a new
    // value is a new launch, confirmed by its line like any other.
    const running = new Set(launches(workspace.documents()).map((launch) => launch.exact));
    const unconfirmed = launches(documents).filter((launch) => !running.has(launch.exact) && !guard.confirmedLaunchLines?.includes(launch.line));
    if (unconfirmed.length > 0) throw launchConfirmationRequired([...new Set(unconfirmed.map((launch) => launch.line))]);
  };
  const guardText = (guard: LaunchGuard | undefined) => (path: string, text: string) => guardLaunches(parseResourceText(text, { fileName: path }), guard);

  return {
    workspace,
    save: (input, guard) => workspace.save(input, guardText(guard)),
    edit: (input, guard) => workspace.edit(input, guardText(guard)),
    reconciler,
    toolConfig: reconciler.toolConfig,
    permissions: reconciler.permissions,
    onPolicyChange: (listener) => reconciler.onPolicyChange(listener),
    async openFolder(next, guard) {
      if (guard?.requireLaunchConfirmation) {
        const preview = new Workspace({ dir: resolve(next), logger: options.logger, watch: false });
        await preview.load();
        guardLaunches(preview.documents(), guard);
        preview.close();
      }
      await workspace.open(next);
      await settings.write({ workspaceDir: workspace.dir });
    },
    async close() {
      workspace.close();
      await reconciler.stop();
    },
  };
}

export function defaultWorkspaceDir(dataDir: string): string {
  return join(dataDir, 'workspace');
}

/** The folder the app opens: the one last opened if it still exists, else the default (seeded on first use). */
export async function currentWorkspaceDir(dataDir: string, examplesDir?: string): Promise<string> {
  const stored = (await readSettings(settingsFile(dataDir))).workspaceDir;
  if (stored && existsSync(stored)) return stored;
  await seedWorkspace(defaultWorkspaceDir(dataDir), examplesDir);
  return defaultWorkspaceDir(dataDir);
}

/** A settings file that cannot be read or is damaged only forgets the folder: the default one opens. */
function readSettings(file: JsonFile<typeof Settings>): Promise<z.infer<typeof Settings>> {
  return file.read().catch(() => ({}));
}
