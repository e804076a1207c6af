import { stringify } from 'yaml';
import { TOOLDECK_FIELD_MANAGER } from '../../../shared/kube';
import type { DiffLine } from '../../../shared/kubeApi';
import { crdManifests, crdOwnership, waitEstablished, type CustomResourceDefinition, type LiveCrd } from '../crds';
import { isNotFound, KubeApiError } from '../KubeApiError';
import { CONTENT_TYPE, type KubeRest } from '../KubeRest';
import { lineDiff } from '../lineDiff';
import { conflictingManagers } from '../managedFields';
import { toolApprovalCrd } from '../toolApprovalCrd';
import { gatewayManifests } from './gatewayManifests';
import { operatorManifests, type Manifest, type OperatorManifestOptions } from './operatorManifests';

/** `kept`: a CRD another installer owns that serves Tooldeck's version, used as it is (see crdOwnership). */
export type InstallAction = 'created' | 'configured' | 'unchanged' | 'kept';

export interface InstalledObject {
  kind: string;
  namespace?: string;
  name: string;
  action: InstallAction;
  /** With dry run: the live object against the server's answer (volatile fields left out). */
  diff?: DiffLine[];
  /** Why the server could not check this object in a dry run (its namespace does not exist yet). */
  unvalidated?: string;
  /** For `kept`: whose object it is. */
  note?: string;
}

export interface InstallOptions extends OperatorManifestOptions {
  dryRun: boolean;
  /** Take over fields another field manager owns (kubectl's --force-conflicts). */
  force: boolean;
  /** Also the MCP gateway (`--gateway`): the ToolApproval CRD, its Deployment of this many replicas, Service and RBAC. */
  gateway?: { replicas: number; historyPostgresSecret?: string };
}

/** Every object install applies, in order: CRDs first (Established before anything uses them), then the namespace and the rest. */
export function installManifests(options: InstallOptions): Manifest[] {
  const gateway = options.gateway;
  return [
    ...(crdManifests() as unknown as Manifest[]),
    ...(gateway ? [toolApprovalCrd() as unknown as Manifest] : []),
    ...operatorManifests(options),
    ...(gateway ? gatewayManifests({ namespace: options.namespace, image: options.image, replicas: gateway.replicas, agentNamespaces: options.clusterWide ? [options.namespace] : options.watchNamespaces, historyPostgresSecret: gateway.historyPostgresSecret }) : []),
  ];
}

const VOLATILE_METADATA = ['managedFields', 'resourceVersion', 'generation', 'uid', 'creationTimestamp'];

/** A 409 from server-side apply: which managers own the fields this apply wanted to set. */
export class InstallConflict extends Error {
  constructor(
    readonly object: string,
    readonly managers: string[],
  ) {
    super(`${object}: fields are owned by ${managers.join(', ')}; rerun with --force to take them over`);
  }
}

/**
 * An object of the name install would write exists and Tooldeck did not install it (it lacks the
 * `app.kubernetes.io/part-of: tooldeck` label every installed object carries): a ClusterRole or a
 * Deployment of someone else's is never rewritten (and its rules or containers replaced) unasked.
 */
export class ForeignObject extends Error {
  constructor(readonly object: string) {
    super(`${object} exists and Tooldeck did not install it (it has no app.kubernetes.io/part-of: tooldeck label): rerun with --force to take it over, or remove it first`);
  }
}

/** Namespaces named with --watch-namespaces that do not exist: install creates no namespace but its own. */
export class MissingNamespaces extends Error {
  constructor(readonly namespaces: string[]) {
    super(`No namespace ${namespaces.join(', ')} in the cluster: create ${namespaces.length > 1 ? 'them' : 'it'} first, or leave ${namespaces.length > 1 ? 'them' : 'it'} out of --watch-namespaces`);
  }
}

/**
 * `tooldeck kube install`: server-side applies the CRDs and the operator's objects as field manager
 * `tooldeck`, in order (CRDs are Established before anything else). A dry run sends every object
 * with dryRun=All and diffs the server's answer against the live object; nothing is written.
 */
export async function installOperator(rest: KubeRest, options: InstallOptions): Promise<InstalledObject[]> {
  const watched = options.clusterWide ? [] : (options.watchNamespaces ?? []).filter((ns) => ns !== options.namespace);
  const missing: string[] = [];
  for (const ns of watched) if (!(await exists(rest, `/api/v1/namespaces/${encodeURIComponent(ns)}`))) missing.push(ns);
  if (missing.length) throw new MissingNamespaces(missing);
  const objects = installManifests(options);
  const results: InstalledObject[] = [];
  let namespaceMissing = false;
  for (const object of objects) {
    const path = objectPath(object);
    const live = await rest.request<Record<string, unknown>>('GET', path).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    const ref = { kind: object.kind, ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}), name: object.metadata.name };
    if (object.kind === 'CustomResourceDefinition') {
      if (crdOwnership(live as LiveCrd | undefined, object as unknown as CustomResourceDefinition) === 'foreign') {
        const installer = (live!.metadata as { labels?: Record<string, string> }).labels?.['app.kubernetes.io/managed-by'];
        results.push({ ...ref, action: 'kept', note: `installed by ${installer ? `"${installer.slice(0, 63)}"` : 'someone else'}; used as it is` });
        continue;
      }
    } else if (live && object.kind !== 'Namespace' && !options.force && !partOfTooldeck(live)) {
      throw new ForeignObject(`${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`);
    }
    if (options.dryRun && namespaceMissing && object.metadata.namespace) {
      // The server cannot dry-run into a namespace that only the (dry-run) Namespace object would create.
      const after = stringify(object);
      results.push({ ...ref, action: 'created', diff: lineDiff('', after), unvalidated: `namespace ${object.metadata.namespace} does not exist yet` });
      continue;
    }
    const answer = await apply(rest, path, object, options);
    if (object.kind === 'Namespace' && !live) namespaceMissing = true;
    const before = live ? stringify(comparable(live)) : '';
    const after = stringify(comparable(answer));
    const action: InstallAction = !live ? 'created' : before === after ? 'unchanged' : 'configured';
    results.push({ ...ref, action, ...(options.dryRun ? { diff: lineDiff(before, after) } : {}) });
    if (!options.dryRun && object.kind === 'CustomResourceDefinition' && action !== 'unchanged') await waitEstablished(rest, path, 30_000);
  }
  return results;
}

function partOfTooldeck(live: Record<string, unknown>): boolean {
  return (live.metadata as { labels?: Record<string, string> } | undefined)?.labels?.['app.kubernetes.io/part-of'] === 'tooldeck';
}

async function exists(rest: KubeRest, path: string): Promise<boolean> {
  return rest.request('GET', path).then(
    () => true,
    (error: unknown) => {
      if (isNotFound(error)) return false;
      throw error;
    },
  );
}

async function apply(rest: KubeRest, path: string, object: Manifest, options: InstallOptions): Promise<Record<string, unknown>> {
  try {
    return await rest.request<Record<string, unknown>>('PATCH', path, {
      body: object,
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager: TOOLDECK_FIELD_MANAGER, force: options.force, ...(options.dryRun ? { dryRun: 'All' } : {}) },
    });
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 409) {
      const managers = conflictingManagers(error.message);
      throw new InstallConflict(`${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`, managers.length ? managers : ['another field manager']);
    }
    throw error;
  }
}

/** Status and server-managed metadata change on their own; the diff is about what install sets. */
function comparable(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = { ...(object.metadata as Record<string, unknown>) };
  for (const key of VOLATILE_METADATA) delete metadata[key];
  const { status: _status, ...rest } = object;
  return { ...rest, metadata };
}

const CLUSTER_SCOPED: Record<string, string> = {
  CustomResourceDefinition: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  Namespace: '/api/v1/namespaces',
  ClusterRole: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  ClusterRoleBinding: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
};

function objectPath(object: Manifest): string {
  const name = encodeURIComponent(object.metadata.name);
  const clusterScoped = CLUSTER_SCOPED[object.kind];
  if (clusterScoped) return `${clusterScoped}/${name}`;
  const group = object.apiVersion === 'v1' ? '/api/v1' : `/apis/${object.apiVersion}`;
  const plural = object.kind === 'PodDisruptionBudget' ? 'poddisruptionbudgets' : `${object.kind.toLowerCase()}s`;
  return `${group}/namespaces/${encodeURIComponent(object.metadata.namespace!)}/${plural}/${name}`;
}
