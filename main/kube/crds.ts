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

/**
 * Server-side applies the CRDs (only those that differ from what the cluster holds) and waits
 * until each is Established. Returns the names it applied.
 */
export async function installCrds(rest: KubeRest, options: { timeoutMs?: number; manifests?: CustomResourceDefinition[] } = {}): Promise<string[]> {
  const applied: string[] = [];
  for (const manifest of options.manifests ?? crdManifests()) {
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${manifest.metadata.name}`;
    const live = await rest.request<Record<string, unknown> & CrdStatus>('GET', path).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    const { apiVersion: _a, kind: _k, ...desired } = manifest;
    const owned = live ? extractOwned(live, TOOLDECK_FIELD_MANAGER) : undefined;
    if (!owned || !semanticEqual({ metadata: { labels: desired.metadata.labels }, spec: desired.spec }, { metadata: owned.metadata, spec: owned.spec })) {
      await rest.request('PATCH', path, { body: manifest, contentType: CONTENT_TYPE.apply, query: { fieldManager: TOOLDECK_FIELD_MANAGER, force: true } });
      applied.push(manifest.metadata.name);
    } else if (isEstablished(live as CrdStatus)) continue;
    await waitEstablished(rest, path, options.timeoutMs ?? 30_000);
  }
  return applied;
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
