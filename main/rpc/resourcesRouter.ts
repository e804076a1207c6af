import { INPUT_LIMITS } from '../../shared/inputLimits';
import { RESOURCE_KINDS, workspaceDocumentSchema } from '../../shared/resources/kinds';
import { AdmitToolInput, DeleteFileInput, EditFileInput, OpenFolderInput, ReadFileInput, SaveFileInput, ValidateTextInput, type WorkspaceEvent } from '../../shared/resources/workspace';
import { watch } from '../platform/AsyncQueue';
import { z } from 'zod';
import { admitTool } from '../resources/admitTool';
import type { LaunchGuard, LocalResources } from '../resources/createLocalResources';
import { procedure, router, type RpcContext } from './trpc';

/** Command lines of stdio McpServers the operator saw and confirmed (see LaunchGuard). */
const confirmations = { confirmedLaunchLines: z.array(z.string()).default([]) };
/**
 * A file written in the desktop app's editor is the operator typing its lines; from the browser each
 * new line is shown and confirmed first. Opening a folder always asks (createLocalResources).
 */
const launchGuard = (ctx: RpcContext, input: { confirmedLaunchLines: string[] }): LaunchGuard => ({ requireLaunchConfirmation: ctx.fromBrowser, confirmedLaunchLines: input.confirmedLaunchLines });

/**
 * The YAML workspace and the local target's statuses. Mounted by the app router with the
 * resources of its core: `resources: createResourcesRouter((ctx) => ctx.core.resources)`.
 * Validation and previews take the whole text, so they are mutations (POST), not queries whose
 * input would travel in the URL.
 */
export function createResourcesRouter(resourcesOf: (ctx: RpcContext) => LocalResources) {
  return router({
    /** The folder and its files, each with counts of errors and warnings. */
    files: procedure.query(({ ctx }) => resourcesOf(ctx).workspace.listing()),
    /** A file's text, its documents as parsed, and every diagnostic (syntax, rules, unknown kinds, duplicates). */
    read: procedure.input(ReadFileInput).query(({ ctx, input }) => resourcesOf(ctx).workspace.read(input.path)),
    validate: procedure.input(ValidateTextInput).mutation(({ ctx, input }) => resourcesOf(ctx).workspace.validateText(input.text, input.path)),
    /** The objects as they will be stored, every default applied. */
    previewDefaults: procedure.input(ValidateTextInput).mutation(({ ctx, input }) => resourcesOf(ctx).workspace.previewDefaults(input.text, input.path)),
    /** Refused with a conflict (code AlreadyExists, step "conflict") when the file changed on disk since expectedVersion, unless force. */
    save: procedure.input(SaveFileInput.extend(confirmations)).mutation(({ ctx, input }) => resourcesOf(ctx).save(input, launchGuard(ctx, input))),
    /** Field edits that keep comments and key order. */
    edit: procedure.input(EditFileInput.extend(confirmations)).mutation(({ ctx, input }) => resourcesOf(ctx).edit(input, launchGuard(ctx, input))),
    /**
     * Adds a tool a workspace McpServer's tool_filter.include keeps out of the registry to that list,
     * in its file (comments kept, conflict-checked). The reconciler applies it; the tool then enters
     * the registry under the workspace's policy. Refused with a sentence when the server is not a
     * workspace McpServer, has no include list, or already includes the tool. The launch guard still
     * applies (from the browser nothing new may start), though a longer include list changes no command.
     */
    admitTool: procedure.input(AdmitToolInput).mutation(({ ctx, input }) => admitTool(resourcesOf(ctx), input, launchGuard(ctx, { confirmedLaunchLines: [] }))),
    delete: procedure.input(DeleteFileInput).mutation(({ ctx, input }) => resourcesOf(ctx).workspace.delete(input)),
    openFolder: procedure.input(OpenFolderInput.extend(confirmations)).mutation(async ({ ctx, input }) => {
      await resourcesOf(ctx).openFolder(input.dir, launchGuard(ctx, input));
      return resourcesOf(ctx).workspace.listing();
    }),
    /**
     * The operator confirmed these exact command lines of the open folder's stdio McpServers (shown by
     * their status as `unconfirmedLaunch`): they join the folder's launch allow-list and start.
     */
    confirmLaunches: procedure
      .input(z.object({ lines: z.array(z.string().min(1).max(INPUT_LIMITS.resourceFile.maxBytes)).min(1).max(100) }))
      .mutation(({ ctx, input }) => resourcesOf(ctx).confirmLaunches(input.lines)),
    /** McpServer statuses, Tool resources (generated ones included) and ToolPermissions. */
    statuses: procedure.query(({ ctx }) => resourcesOf(ctx).reconciler.statuses()),
    /** JSON Schemas for the YAML editor: one for any workspace document, and one per kind. */
    schemas: procedure.query(() => ({
      document: workspaceDocumentSchema,
      kinds: RESOURCE_KINDS.map(({ kind, apiVersion, schema }) => ({ kind, apiVersion, schema })),
    })),
    /** The file list and statuses, again after every change: outside edits, saves, connections. */
    watch: procedure.subscription(async function* ({ ctx, signal }) {
      const resources = resourcesOf(ctx);
      const changed = new Set<string>();
      yield* watch(
        (notify) => {
          const offFiles = resources.workspace.onChange((change) => {
            for (const path of change.changed) changed.add(path);
            notify();
          });
          const offStatuses = resources.reconciler.onChange(notify);
          return () => {
            offFiles();
            offStatuses();
          };
        },
        (): WorkspaceEvent => {
          const event = { ...resources.workspace.listing(), changed: [...changed].sort(), statuses: resources.reconciler.statuses() };
          changed.clear();
          return event;
        },
        signal,
        100,
      );
    }),
  });
}
