import { AppError } from '../../shared/errors';
import type { DefinitionDiff } from '../../shared/lock';
import { LANGOP_API_VERSION, TOOLDECK_FIELD_MANAGER, type LanguageToolStatus, type ToolDefinitionsStatus, type ToolSchema } from '../../shared/kube';
import { definitionDiff, type DiffTool } from '../lock/definitionDiff';
import { hashDefinition, setHash } from '../lock/definitionHash';
import type { DefinitionStore } from '../lock/DefinitionStore';
import type { Logger } from '../platform/Logger';
import { findCondition, setCondition } from '../reconcile/conditions';
import { CONTENT_TYPE, type KubeRest } from './KubeRest';
import type { LanguageToolObject, ObjectMeta } from './toolResources';

/** The set hash an operator approved, on the LanguageTool; written with server-side apply. */
export const APPROVED_DEFINITIONS_ANNOTATION = 'langop.io/approved-definitions';
export const DEFINITIONS_CHANGED = 'DefinitionsChanged';
/** Approvals have a field manager of their own: applying a tool's YAML (manager `tooldeck`) must never take an approval away. */
export const APPROVALS_FIELD_MANAGER = `${TOOLDECK_FIELD_MANAGER}-approvals`;

/** Per tool and for the whole set, the same hashes tooldeck.lock pins for a local server. */
export function definitionHashes(schemas: readonly ToolSchema[]): Omit<ToolDefinitionsStatus, 'approvedHash'> {
  const tools = Object.fromEntries(schemas.map((schema) => [schema.name, hashDefinition(schema).hash]));
  return { hash: setHash(Object.entries(tools).map(([name, hash]) => ({ name, hash }))), tools };
}

export function approvedHashOf(metadata: Pick<ObjectMeta, 'annotations'>): string | undefined {
  return metadata.annotations?.[APPROVED_DEFINITIONS_ANNOTATION] || undefined;
}

/**
 * A tool's status with its definition hashes and the DefinitionsChanged condition: True while the
 * discovered set is not the approved one, and then the last approved set is kept beside the
 * discovered one so the change can be shown as a diff.
 */
export function withDefinitionStatus(status: LanguageToolStatus, previous: LanguageToolStatus | undefined, approvedHash: string | undefined, generation: number, now?: () => Date): LanguageToolStatus {
  const schemas = status.toolSchemas;
  if (!schemas) return status;
  const hashes = definitionHashes(schemas);
  const approved = approvedHash === hashes.hash;
  const definitions: ToolDefinitionsStatus = { ...hashes, ...(approvedHash ? { approvedHash } : {}) };
  let approvedToolSchemas: ToolSchema[] | undefined;
  if (!approved && approvedHash) {
    if (previous?.definitions?.hash === approvedHash && previous.toolSchemas) approvedToolSchemas = previous.toolSchemas;
    else if (previous?.definitions?.approvedHash === approvedHash) approvedToolSchemas = previous.approvedToolSchemas;
  }
  const condition = approved
    ? { status: 'False' as const, reason: 'Approved', message: `The ${schemas.length} discovered tool definitions are the approved ones` }
    : { status: 'True' as const, reason: approvedHash ? 'AwaitingApproval' : 'NotApproved', message: changeSummary(schemas, approvedToolSchemas, approvedHash) };
  const { approvedToolSchemas: _previousCopy, ...rest } = status;
  return {
    ...rest,
    definitions,
    ...(approvedToolSchemas ? { approvedToolSchemas } : {}),
    conditions: setCondition(status.conditions, { type: DEFINITIONS_CHANGED, ...condition, observedGeneration: generation }, now),
  };
}

/** True while agents must not be given the tool's endpoint: its definitions wait for approval. */
export function definitionsHeld(status: LanguageToolStatus | undefined): boolean {
  return findCondition(status?.conditions, DEFINITIONS_CHANGED)?.status === 'True';
}

/** The server-side apply body that approves `hash` on a tool: the annotation and nothing else. */
export function approvalApplyConfiguration(metadata: Pick<ObjectMeta, 'name' | 'namespace'>, apiVersion: string, hash: string) {
  return { apiVersion, kind: 'LanguageTool', metadata: { name: metadata.name, namespace: metadata.namespace, annotations: { [APPROVED_DEFINITIONS_ANNOTATION]: hash } } };
}

/**
 * Approves a LanguageTool's discovered definitions (the Cluster section and `tooldeck kube approve`):
 * the set hash goes into its annotation with server-side apply. With `expectedHash`, only if that is
 * still what the tool discovered, so an approval never covers definitions nobody reviewed.
 */
export async function approveClusterDefinitions(rest: KubeRest, namespace: string, name: string, expectedHash?: string): Promise<{ hash: string; tool: LanguageToolObject }> {
  const path = `/apis/${LANGOP_API_VERSION}/namespaces/${encodeURIComponent(namespace)}/languagetools/${encodeURIComponent(name)}`;
  const tool = await rest.request<LanguageToolObject>('GET', path);
  const current = tool.status?.definitions?.hash;
  if (!current) throw new AppError('NotFound', `LanguageTool ${namespace}/${name} has no discovered definitions yet: nothing to approve.`);
  if (expectedHash !== undefined && current !== expectedHash) {
    throw new AppError('AlreadyExists', `LanguageTool ${namespace}/${name} now lists other definitions (${current.slice(0, 19)}…); review them again before approving.`);
  }
  await rest.request('PATCH', path, { body: approvalApplyConfiguration(tool.metadata, LANGOP_API_VERSION, current), contentType: CONTENT_TYPE.apply, query: { fieldManager: APPROVALS_FIELD_MANAGER, force: true } });
  return { hash: current, tool };
}

/** The approved definitions against the discovered ones, when the status holds both. */
export function clusterDefinitionsDiff(source: string, status: LanguageToolStatus | undefined): DefinitionDiff | undefined {
  if (!status?.toolSchemas || !definitionsHeld(status)) return undefined;
  const side = (schemas: readonly ToolSchema[]): DiffTool[] => schemas.map(toDiffTool);
  // Without the approved copy (approved on another cluster, or by hand) only the set hash is known: no diff to show.
  if (!status.approvedToolSchemas) return undefined;
  return definitionDiff(source, 'approved', 'current', side(status.approvedToolSchemas), side(status.toolSchemas));
}

/**
 * The DefinitionStore source of a LanguageTool's revisions: `kube:<context>/<namespace>/<name>`.
 * Namespace and name never hold a `/`, so a context name that does (EKS ARNs) stays unambiguous.
 */
export function clusterDefinitionsSource(context: string, namespace: string, name: string): string {
  return `kube:${context}/${namespace}/${name}`;
}

/**
 * Records the definitions a LanguageTool's status says were discovered as a revision of its
 * source, in the same store as every local source's: a new revision only when the set differs
 * from the tool's latest one. A tool that has not discovered anything yet records nothing; a
 * store that fails is logged, never thrown into the informer that saw the tool.
 */
export function recordClusterDefinitions(
  store: DefinitionStore,
  context: string,
  tool: Pick<LanguageToolObject, 'metadata' | 'status'>,
  options: { logger?: Logger; at?: number } = {},
): { revision: number; created: boolean } | undefined {
  const schemas = tool.status?.toolSchemas;
  if (!schemas) return undefined;
  const source = clusterDefinitionsSource(context, tool.metadata.namespace ?? '', tool.metadata.name);
  try {
    // One definition per name, the last one listed, as definitionHashes counts them: the revision's set hash is then the status's.
    const byName = new Map(schemas.map((schema) => [schema.name, hashDefinition(schema)] as const));
    return store.record(
      source,
      [...byName].map(([name, hashes]) => ({ name, hash: hashes.hash, body: hashes.body, json: hashes.json })),
      options.at,
    );
  } catch (error) {
    options.logger?.warn('tool definitions not recorded', { source, error: (error as Error).message });
    return undefined;
  }
}

function changeSummary(schemas: readonly ToolSchema[], approved: readonly ToolSchema[] | undefined, approvedHash: string | undefined): string {
  if (!approvedHash) return `${schemas.length} discovered tool definitions have not been approved: approve them (annotation ${APPROVED_DEFINITIONS_ANNOTATION}) before agents get this tool`;
  if (!approved) return `The discovered tool definitions differ from the approved ones (${approvedHash.slice(0, 19)}…); agents do not get this tool until they are approved`;
  const diff = definitionDiff('', 'approved', 'current', approved.map(toDiffTool), schemas.map(toDiffTool));
  const parts = diff.tools.filter((tool) => tool.change !== 'unchanged').map((tool) => (tool.change === 'renamed' ? `${tool.previousName} renamed to ${tool.name}` : `${tool.name} ${tool.change}${tool.fields.length ? ` (${tool.fields.join(', ')})` : ''}`));
  return `${parts.join('; ')}; agents do not get this tool until the new definitions are approved`;
}

function toDiffTool(schema: ToolSchema): DiffTool {
  const hashes = hashDefinition(schema);
  return { name: schema.name, hash: hashes.hash, body: hashes.body, definition: hashes.definition };
}
