import { isMap, isSeq } from 'yaml';
import { AppError } from '../../shared/errors';
import type { AdmitToolInput, AdmitToolResult, FieldEdit } from '../../shared/resources/workspace';
import type { LaunchGuard, LocalResources } from './createLocalResources';
import { parseDocuments } from './editResourceText';

/**
 * The edit that adds `tool` to `spec.tool_filter.include` of the McpServer named `server` in a
 * workspace file's text: one list item appended through the yaml Document API, so the file keeps
 * its comments, key order and list style. Refused (InvalidInput or AlreadyExists) with the
 * sentence the operator reads when there is nothing to admit the tool to, or it is already in.
 */
export function admitToolEdit(text: string, file: string, server: string, tool: string): FieldEdit {
  const docs = parseDocuments(text);
  const index = docs.findIndex((doc) => doc.get('kind') === 'McpServer' && doc.getIn(['metadata', 'name']) === server);
  const doc = docs[index];
  if (!doc) throw new AppError('NotFound', `${file} has no McpServer named ${server}; it may have been renamed or moved. Reload the workspace and try again.`);
  if (doc.errors.length > 0) throw new AppError('InvalidInput', `The McpServer ${server} in ${file} has YAML errors (${doc.errors[0]!.message}); fix them in Resources first.`);
  const filter = doc.getIn(['spec', 'tool_filter'], true);
  const include = isMap(filter) ? filter.get('include', true) : undefined;
  if (!isSeq(include) || include.items.length === 0) {
    throw new AppError(
      'InvalidInput',
      `The McpServer ${server} in ${file} has no tool_filter.include list, so it leaves none of its tools out of the registry: ${tool} is excluded by nothing there to change.`,
    );
  }
  const listed = include.toJSON() as unknown[];
  if (listed.includes(tool)) throw new AppError('AlreadyExists', `${tool} is already in tool_filter.include of the McpServer ${server} in ${file}.`);
  return { document: index, path: ['spec', 'tool_filter', 'include', include.items.length], value: tool };
}

/**
 * Admits a tool a workspace McpServer's `tool_filter.include` keeps out of the registry: writes
 * its name into that list in the server's file, with the workspace's own conflict check (the file
 * must still be the version the workspace last read). The reconciler then applies the changed
 * resource like any other edit, and the tool becomes a registry entry under the workspace's
 * policy (Tool resources, ToolPermissions) — admitting it grants nothing beyond that.
 */
export async function admitTool(resources: LocalResources, input: AdmitToolInput, guard?: LaunchGuard): Promise<AdmitToolResult> {
  const declared = resources.reconciler.workspaceServers().find((server) => server.name === input.server);
  if (!declared) {
    throw new AppError(
      'InvalidInput',
      `${input.server} is not an McpServer of the workspace, so no tool_filter keeps its tools out of the registry; tools of saved servers are all in it already.`,
    );
  }
  const file = resources.workspace.read(declared.file);
  if (file.text === undefined || file.version === null) throw new AppError('InvalidInput', `${declared.file} cannot be read as it stands (${file.tooLarge ? 'too large' : 'unreadable'}), so it cannot be edited here.`);
  const edit = admitToolEdit(file.text, declared.file, input.server, input.tool);
  const written = await resources.edit({ path: declared.file, expectedVersion: file.version, edits: [edit] }, guard);
  return { file: written.path, version: written.version, registryName: `mcp:${input.server}.${input.tool}` };
}
