import { languageAgentSchema, languageToolSchema, type OpenApiSchema } from '../../shared/crdSchemas';
import { LANGOP_GROUP, LANGOP_VERSION, TOOLDECK_FIELD_MANAGER } from '../../shared/kube';
import { isNotFound } from './KubeApiError';
import type { KubeRest } from './KubeRest';
import { CONTENT_TYPE } from './KubeRest';
import { extractOwned } from './managedFields';
import { semanticEqual } from './semanticEqual';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    scope: 'Namespaced';
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames: string[]; categories: string[] };
    versions: Array<{
      name: string;
      served: true;
      storage: true;
      schema: { openAPIV3Schema: OpenApiSchema };
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: PrinterColumn[];
    }>;
  };
}

function crd(kind: string, plural: string, shortName: string, schema: OpenApiSchema, columns: PrinterColumn[]): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${LANGOP_GROUP}`, labels: { 'app.kubernetes.io/managed-by': TOOLDECK_FIELD_MANAGER } },
    spec: {
      group: LANGOP_GROUP,
      scope: 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase(), shortNames: [shortName], categories: ['langop'] },
      versions: [
        {
          name: LANGOP_VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {} },
          additionalPrinterColumns: [...columns, { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
        },
      ],
    },
  };
}

/** The CRDs Tooldeck installs; resources/crds/*.yaml hold the same objects for kubectl. */
export function crdManifests(): CustomResourceDefinition[] {
  return [
    crd('LanguageTool', 'languagetools', 'ltool', languageToolSchema, [
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Endpoint', type: 'string', jsonPath: '.status.endpoint' },
      { name: 'Tools', type: 'string', jsonPath: '.status.availableTools', description: 'Tools discovered with tools/list' },
      { name: 'Mode', type: 'string', jsonPath: '.spec.deploymentMode', priority: 1 },
    ]),
    crd('LanguageAgent', 'languageagents', 'lagent', languageAgentSchema, [
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Tools', type: 'string', jsonPath: '.spec.tools[*].name' },
    ]),
  ];
}

interface CrdStatus {
  metadata: { generation?: number };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

/** The label every CRD Tooldeck installs carries: the one mark that says a live CRD is Tooldeck's to change. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

export interface LiveCrd extends CrdStatus {
  metadata: CrdStatus['metadata'] & { labels?: Record<string, string> };
  spec?: { versions?: Array<{ name?: string; served?: boolean }> };
}

/**
 * A CRD of the same name that another installer owns (Language Operator's own chart, Orloj's) and
 * that does not serve the version Tooldeck needs. Tooldeck never rewrites another installer's CRD —
 * a forced apply would replace its schema and validation with ours and relabel it as Tooldeck's.
 */
export class ForeignCrdError extends Error {
  constructor(readonly crd: string, readonly installer: string, readonly version: string) {
    super(`CustomResourceDefinition ${crd} was installed by ${installer}, not Tooldeck, and does not serve ${version}: Tooldeck leaves another installer's CRD as it is; upgrade it to serve ${version} or remove it first`);
  }
}

/**
 * Whose a live CRD is: `absent`, Tooldeck's own (`ours`, labelled as installed by Tooldeck), or
 * another installer's that serves the version Tooldeck needs (`foreign`: used as it is, never
 * changed). Another installer's CRD that lacks the version throws ForeignCrdError.
 */
export function crdOwnership(live: LiveCrd | undefined, manifest: CustomResourceDefinition): 'absent' | 'ours' | 'foreign' {
  if (!live) return 'absent';
  if (live.metadata.labels?.[MANAGED_BY_LABEL] === TOOLDECK_FIELD_MANAGER) return 'ours';
  const version = manifest.spec.versions[0]!.name;
  const serves = (live.spec?.versions ?? []).some((v) => v.name === version && v.served === true);
  if (!serves) throw new ForeignCrdError(manifest.metadata.name, installerOf(live), version);
  return 'foreign';
}

function installerOf(live: LiveCrd): string {
  const label = live.metadata.labels?.[MANAGED_BY_LABEL];
  return label ? `"${label.slice(0, 63)}"` : 'someone else';
}

export interface CrdInstall {
  /** CRDs applied because they were missing or differed from Tooldeck's. */
  applied: string[];
  /** CRDs another installer owns, used as they are (they serve the version Tooldeck needs). */
  kept: string[];
}

/**
 * Server-side applies Tooldeck's CRDs (only those that differ from what the cluster holds) and
 * waits until each is Established. A CRD of the same name that another installer owns is never
 * changed (see crdOwnership): it is used as it is when it serves Tooldeck's version, else refused.
 */
export async function installCrds(rest: KubeRest, options: { timeoutMs?: number; manifests?: CustomResourceDefinition[] } = {}): Promise<CrdInstall> {
  const outcome: CrdInstall = { applied: [], kept: [] };
  for (const manifest of options.manifests ?? crdManifests()) {
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${manifest.metadata.name}`;
    const live = await rest.request<Record<string, unknown> & LiveCrd>('GET', path).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    if (crdOwnership(live, manifest) === 'foreign') {
      outcome.kept.push(manifest.metadata.name);
      if (!isEstablished(live!)) await waitEstablished(rest, path, options.timeoutMs ?? 30_000);
      continue;
    }
    const { apiVersion: _a, kind: _k, ...desired } = manifest;
    const owned = live ? extractOwned(live, TOOLDECK_FIELD_MANAGER) : undefined;
    if (!owned || !semanticEqual({ metadata: { labels: desired.metadata.labels }, spec: desired.spec }, { metadata: owned.metadata, spec: owned.spec })) {
      // Forced only over Tooldeck's own CRD (crdOwnership): fields a `kubectl edit` took are taken back.
      await rest.request('PATCH', path, { body: manifest, contentType: CONTENT_TYPE.apply, query: { fieldManager: TOOLDECK_FIELD_MANAGER, force: true } });
      outcome.applied.push(manifest.metadata.name);
    } else if (isEstablished(live as CrdStatus)) continue;
    await waitEstablished(rest, path, options.timeoutMs ?? 30_000);
  }
  return outcome;
}

export async function waitEstablished(rest: KubeRest, path: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1_000)) {
    const crd = await rest.request<CrdStatus>('GET', path);
    if (isEstablished(crd)) return;
    const conditions = crd.status?.conditions ?? [];
    const rejected = conditions.find((c) => c.type === 'NamesAccepted' && c.status === 'False');
    if (rejected) throw new Error(`CRD ${path} names not accepted: ${rejected.message ?? rejected.reason}`);
    if (Date.now() > deadline) throw new Error(`CRD ${path} not Established after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function isEstablished(crd: CrdStatus): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
}
