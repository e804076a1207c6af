import { posix } from 'node:path';
import { CLAW_DESCRIPTOR_FILE } from '../../shared/resources/clawDescriptor';
import { podNameFromFile } from '../../shared/resources/clawPod';
import { kindInfo, RESOURCE_KINDS } from '../../shared/resources/kinds';
import { ORLOJ_API_VERSION, ORLOJ_DEFAULT_NAMESPACE, type ResourceKind } from '../../shared/resources/meta';
import { isPlainObject, type RawObject } from './kinds/fieldReaders';
import { normalizeClawDescriptor } from './kinds/normalizeClawDescriptor';
import { normalizeClawPod } from './kinds/normalizeClawPod';
import { normalizeEvalSuite } from './kinds/normalizeEvalSuite';
import { EVAL_SUITE_FILE } from '../../shared/evals';
import { normalizeLanguageOperator } from './kinds/normalizeLanguageOperator';
import { normalizeMcpServer } from './kinds/normalizeMcpServer';
import { normalizeOrlojTool } from './kinds/normalizeOrlojTool';
import { normalizeToolPermissionResource } from './kinds/normalizeToolPermissionResource';
import { ResourceIssues, type ResourceIssue } from './kinds/ResourceIssues';
import { warnUnknownFields } from './kinds/unknownFields';

export interface ResourceContext {
  /** The file the object comes from: `<service>.claw-describe.*` files hold Clawdapus descriptors. */
  fileName?: string;
  /** Read the text as an eval suite whatever its file is called (`tooldeck eval FILE`). */
  evalSuite?: boolean;
}

/** Kind, namespace and name: what makes an object unique in the workspace. */
export interface ResourceIdentity {
  kind: ResourceKind;
  apiVersion?: string;
  namespace?: string;
  name: string;
}

export interface NormalizedResource {
  /** Known as soon as apiVersion, kind and a name are readable, even if the rest is invalid. */
  identity?: ResourceIdentity;
  /** The object as it will be stored, every default applied; undefined while it has errors. */
  stored?: Record<string, unknown>;
  issues: ResourceIssue[];
}

export function identityKey(identity: ResourceIdentity): string {
  return `${identity.kind}/${identity.namespace ?? ''}/${identity.name}`;
}

export function describeIdentity(identity: ResourceIdentity): string {
  return `${identity.kind} ${identity.namespace && identity.namespace !== ORLOJ_DEFAULT_NAMESPACE ? `${identity.namespace}/` : ''}${identity.name}`;
}

export function descriptorService(fileName: string | undefined): string | undefined {
  return fileName ? CLAW_DESCRIPTOR_FILE.exec(baseName(fileName))?.[1] : undefined;
}

/** `<pod>.claw-pod.yml` and `claw-pod.yml` files are Clawdapus pods; the pod name their file implies. */
export function podFileName(fileName: string | undefined): string | undefined {
  return fileName ? podNameFromFile(baseName(fileName)) : undefined;
}

function baseName(fileName: string): string {
  return posix.basename(fileName.replace(/\\/g, '/'));
}

/** Validates one object and applies its kind's defaults; pure (no I/O, no clock). */
export function normalizeResource(raw: unknown, context: ResourceContext = {}): NormalizedResource {
  const issues = new ResourceIssues();
  const service = descriptorService(context.fileName);
  const pod = podFileName(context.fileName);
  const evalSuite = context.evalSuite === true || (context.fileName !== undefined && EVAL_SUITE_FILE.test(context.fileName.replace(/\\/g, '/')));
  if (!isPlainObject(raw)) {
    issues.error(
      [],
      evalSuite ? 'an eval suite must be a mapping with name, agent or tools, and cases' : service ? 'a claw.describe descriptor must be a mapping with version and tools' : pod ? 'a pod file must be a mapping with services' : 'a resource must be a mapping with apiVersion, kind, metadata and spec',
    );
    return { issues: issues.list };
  }
  if (evalSuite) {
    const suite = normalizeEvalSuite(raw, issues);
    return { identity: { kind: 'EvalSuite', name: typeof raw.name === 'string' ? raw.name.trim() : '' }, stored: issues.hasErrors ? undefined : suite, issues: issues.list };
  }
  if (pod) {
    const object = normalizeClawPod(raw, pod, issues);
    return { identity: { kind: 'ClawPod', name: object.metadata.name }, stored: issues.hasErrors ? undefined : object.pod, issues: issues.list };
  }
  if (service) {
    const object = normalizeClawDescriptor(raw, service, issues);
    warnUnknownFields(raw, kindInfo('ClawDescriptor')!.schema, [], issues);
    return { identity: { kind: 'ClawDescriptor', name: service }, stored: issues.hasErrors ? undefined : object.descriptor, issues: issues.list };
  }
  const identity = identify(raw, issues);
  if (!identity) return { issues: issues.list };
  const object = normalizeKind(identity.kind, raw, issues);
  if (raw.status !== undefined) issues.warn(['status'], 'is written by the reconciler; the value in the file is ignored', 'unknownField');
  warnUnknownFields(raw, kindInfo(identity.kind)!.schema, [], issues, new Set(['status']));
  return { identity, stored: issues.hasErrors ? undefined : object, issues: issues.list };
}

function normalizeKind(kind: ResourceKind, raw: RawObject, issues: ResourceIssues): Record<string, unknown> {
  switch (kind) {
    case 'Tool':
      return { ...normalizeOrlojTool(raw, issues) };
    case 'McpServer':
      return { ...normalizeMcpServer(raw, issues) };
    case 'ToolPermission':
      return { ...normalizeToolPermissionResource(raw, issues) };
    case 'LanguageTool':
    case 'LanguageAgent':
      return { ...normalizeLanguageOperator(kind, raw, issues) };
    case 'ClawDescriptor':
    case 'ClawPod':
    case 'EvalSuite':
      throw new Error('descriptors, pod files and eval suites are read by file name');
  }
}

function identify(raw: RawObject, issues: ResourceIssues): ResourceIdentity | undefined {
  const apiVersion = typeof raw.apiVersion === 'string' ? raw.apiVersion.trim() : undefined;
  const kind = typeof raw.kind === 'string' ? raw.kind.trim() : undefined;
  if (!apiVersion) issues.error(['apiVersion'], raw.apiVersion === undefined ? 'is required' : 'must be a string');
  if (!kind) issues.error(['kind'], raw.kind === undefined ? 'is required' : 'must be a string');
  if (!apiVersion || !kind) return undefined;
  const info = RESOURCE_KINDS.find((candidate) => candidate.kind === kind && candidate.apiVersion);
  if (!info) {
    issues.error(['kind'], `unknown kind "${kind}"; known kinds: ${knownKinds()}`, 'unknownKind');
    return undefined;
  }
  if (info.apiVersion !== apiVersion) {
    issues.error(['apiVersion'], `${kind} is served as ${info.apiVersion}, not "${apiVersion}"`, 'unknownKind');
    return undefined;
  }
  const metadata = isPlainObject(raw.metadata) ? raw.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name.trim() : '';
  const namespace = typeof metadata.namespace === 'string' && metadata.namespace.trim() ? metadata.namespace.trim() : apiVersion === ORLOJ_API_VERSION ? ORLOJ_DEFAULT_NAMESPACE : undefined;
  return { kind: info.kind, apiVersion, name, ...(namespace ? { namespace } : {}) };
}

function knownKinds(): string {
  const byVersion = new Map<string, string[]>();
  for (const info of RESOURCE_KINDS) if (info.apiVersion) byVersion.set(info.apiVersion, [...(byVersion.get(info.apiVersion) ?? []), info.kind]);
  return [...byVersion].map(([version, kinds]) => `${kinds.join(', ')} (${version})`).join('; ');
}
