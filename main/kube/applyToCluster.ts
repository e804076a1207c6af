import { AppError } from '../../shared/errors';
import { LANGOP_API_VERSION, TOOLDECK_FIELD_MANAGER } from '../../shared/kube';
import { isConflict, isKubeApiError, isNotFound } from './KubeApiError';
import type { KubeConnection } from './KubeConnection';
import { CONTENT_TYPE } from './KubeRest';
import type { ApplyAction } from '../resources/applyToWorkspace';
import { describeIdentity, type ResourceIdentity } from '../resources/normalizeResource';

export interface ClusterObject {
  identity: ResourceIdentity;
  stored: Record<string, unknown>;
}

export interface ClusterApplyResult {
  identity: ResourceIdentity;
  namespace: string;
  action: ApplyAction;
}

const PLURALS: Record<string, string> = { LanguageTool: 'languagetools', LanguageAgent: 'languageagents' };

interface LiveObject {
  metadata?: { generation?: number; resourceVersion?: string };
}

/**
 * Server-side apply (field manager `tooldeck`, force off) of LanguageTools and LanguageAgents. The
 * other kinds have no CRDs in the cluster and are refused before anything is written; a field owned
 * by another manager is a conflict, reported rather than taken over.
 */
export async function applyToCluster(connection: KubeConnection, objects: readonly ClusterObject[], options: { dryRun?: boolean } = {}): Promise<ClusterApplyResult[]> {
  const unsupported = objects.filter((object) => !PLURALS[object.identity.kind]);
  if (unsupported.length > 0) {
    throw new AppError('InvalidInput', `The cluster target serves LanguageTool and LanguageAgent only; not applied: ${unsupported.map((o) => describeIdentity(o.identity)).join(', ')}. Apply them with --target local.`);
  }
  const contextNamespace = connection.kc.getContextObject(connection.context)?.namespace;
  const results: ClusterApplyResult[] = [];
  for (const { identity, stored } of objects) {
    const metadata = stored.metadata as { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
    const namespace = metadata.namespace ?? connection.namespace ?? contextNamespace ?? 'default';
    const path = `/apis/${LANGOP_API_VERSION}/namespaces/${encodeURIComponent(namespace)}/${PLURALS[identity.kind]}/${encodeURIComponent(metadata.name)}`;
    const before = await connection.rest.request<LiveObject>('GET', path).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw clusterError(error, identity, namespace);
    });
    const body = { apiVersion: LANGOP_API_VERSION, kind: identity.kind, metadata: { ...metadata, namespace }, spec: stored.spec };
    let after: LiveObject;
    try {
      after = await connection.rest.request<LiveObject>('PATCH', path, {
        body,
        contentType: CONTENT_TYPE.apply,
        query: { fieldManager: TOOLDECK_FIELD_MANAGER, force: false, ...(options.dryRun ? { dryRun: 'All' } : {}) },
      });
    } catch (error) {
      throw clusterError(error, identity, namespace);
    }
    const action: ApplyAction = !before ? 'created' : before.metadata?.generation === after.metadata?.generation && before.metadata?.resourceVersion === after.metadata?.resourceVersion ? 'unchanged' : 'configured';
    results.push({ identity, namespace, action });
  }
  return results;
}

function clusterError(error: unknown, identity: ResourceIdentity, namespace: string): AppError {
  const what = `${identity.kind} ${namespace}/${identity.name}`;
  if (isConflict(error)) {
    return new AppError('AlreadyExists', `${what}: ${(error as Error).message} (another field manager owns these fields; tooldeck applies without force, so change them there or remove them from this file)`, { step: 'conflict' });
  }
  if (isNotFound(error)) return new AppError('NotFound', `${what}: ${(error as Error).message} (if the langop.io CRDs are not installed, run tooldeck kube reconcile once)`);
  if (isKubeApiError(error) && error.status === 0) return new AppError('ConnectionFailed', `${what}: ${error.message}`);
  if (isKubeApiError(error) && error.status === 422) return new AppError('InvalidInput', `${what}: the cluster refused it: ${error.message}`);
  return new AppError('ExecutionFailed', `${what}: ${(error as Error).message}`);
}
