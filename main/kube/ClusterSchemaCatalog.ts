import { createHash } from 'node:crypto';
import type { ClusterKind } from '../../shared/kubeApi';
import type { Logger } from '../platform/Logger';
import { apiVersionOf, convertOpenApiDocument, definitionRef, groupVersionOf, type ConvertedDocument, type GroupVersion, type JsonSchema, type OpenApiDocument } from './convertOpenApiDocument';
import type { KubeRest } from './KubeRest';

/** The groups kube-apiserver serves itself. A group outside this list comes from a CRD (or an aggregated API). */
const BUILT_IN_GROUPS = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'extensions',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/**
 * The built-in group-versions whose kinds people write as manifests. The others (reviews, leases,
 * flow control, endpoint slices, certificates…) are written by controllers and clients; leaving
 * them out takes what the editor gets from 840 KB to 680 KB on v1.35.
 */
const AUTHORED_BUILT_INS = new Set([
  'api/v1',
  'apis/admissionregistration.k8s.io/v1',
  'apis/apiextensions.k8s.io/v1',
  'apis/apps/v1',
  'apis/batch/v1',
  'apis/autoscaling/v2',
  'apis/networking.k8s.io/v1',
  'apis/policy/v1',
  'apis/rbac.authorization.k8s.io/v1',
  'apis/storage.k8s.io/v1',
  'apis/scheduling.k8s.io/v1',
]);

const PARALLEL_FETCHES = 4;

interface OpenApiIndex {
  paths?: Record<string, { serverRelativeURL?: string }>;
}

interface CachedDocument {
  /** The index's URL for the document: it carries the document's hash, so a new URL means a changed document. */
  url: string;
  groupVersion: GroupVersion;
  converted: ConvertedDocument;
}

export interface KindSchemas {
  revision: string;
  groupVersions: string[];
  kinds: ClusterKind[];
  definitions: Record<string, JsonSchema>;
}

/**
 * The cluster's kinds as JSON Schema, read from /openapi/v3. Each call reads the small index; a
 * group-version document is fetched again only when its hash in the index changed (a CRD was
 * changed, a group appeared or went), and the result is rebuilt only then.
 */
export class ClusterSchemaCatalog {
  private readonly documents = new Map<string, CachedDocument>();
  private built?: KindSchemas;
  private inFlight?: Promise<KindSchemas>;

  constructor(
    private readonly rest: KubeRest,
    private readonly logger: Logger,
  ) {}

  read(): Promise<KindSchemas> {
    // Editors opening together share one round of requests.
    this.inFlight ??= this.refresh().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async refresh(): Promise<KindSchemas> {
    const index = await this.rest.request<OpenApiIndex>('GET', '/openapi/v3');
    const wanted = selectDocuments(index);
    const stale = wanted.filter((entry) => this.documents.get(entry.path)?.url !== entry.url);
    const wantedPaths = new Set(wanted.map((entry) => entry.path));
    const dropped = [...this.documents.keys()].filter((path) => !wantedPaths.has(path));
    for (const path of dropped) this.documents.delete(path);
    if (this.built && stale.length === 0 && dropped.length === 0) return this.built;

    await forEachLimited(stale, PARALLEL_FETCHES, async (entry) => {
      try {
        const document = await this.rest.request<OpenApiDocument>('GET', entry.url);
        this.documents.set(entry.path, { url: entry.url, groupVersion: entry.groupVersion, converted: convertOpenApiDocument(entry.groupVersion, document) });
      } catch (error) {
        // One group failing (an aggregated API that is down) leaves the others usable; it is tried again next time.
        this.documents.delete(entry.path);
        this.logger.warn(`Cluster schemas: cannot read ${entry.path}: ${(error as Error).message}`);
      }
    });
    this.built = assemble([...this.documents.values()]);
    return this.built;
  }
}

function selectDocuments(index: OpenApiIndex): Array<{ path: string; url: string; groupVersion: GroupVersion }> {
  return Object.entries(index.paths ?? {})
    .flatMap(([path, entry]) => {
      const groupVersion = groupVersionOf(path);
      if (!groupVersion || !entry.serverRelativeURL) return [];
      if (BUILT_IN_GROUPS.has(groupVersion.group) && !AUTHORED_BUILT_INS.has(path)) return [];
      return [{ path, url: entry.serverRelativeURL, groupVersion }];
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** All kinds, and the definitions they reach (a schema shared by several documents is taken once). */
function assemble(documents: CachedDocument[]): KindSchemas {
  const sorted = [...documents].sort((a, b) => apiVersionOf(a.groupVersion).localeCompare(apiVersionOf(b.groupVersion)));
  const available = new Map<string, JsonSchema>();
  for (const document of sorted) {
    for (const [name, schema] of Object.entries(document.converted.definitions)) if (!available.has(name)) available.set(name, schema);
  }
  const kinds = sorted.flatMap((document) => document.converted.kinds);
  const definitions: Record<string, JsonSchema> = {};
  const refToName = new Map([...available.keys()].map((name) => [definitionRef(name), name]));
  const pending = kinds.map((kind) => kind.definition);
  while (pending.length) {
    const name = pending.pop()!;
    if (definitions[name] || !available.has(name)) continue;
    const schema = available.get(name)!;
    definitions[name] = schema;
    collectRefs(schema, (ref) => {
      const target = refToName.get(ref);
      if (target && !definitions[target]) pending.push(target);
    });
  }
  const revision = createHash('sha256')
    .update(sorted.map((document) => document.url).join('\n'))
    .digest('hex')
    .slice(0, 16);
  return { revision, groupVersions: sorted.map((document) => apiVersionOf(document.groupVersion)), kinds, definitions };
}

function collectRefs(node: unknown, found: (ref: string) => void) {
  if (Array.isArray(node)) for (const child of node) collectRefs(child, found);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found(value);
      else collectRefs(value, found);
    }
  }
}

async function forEachLimited<T>(items: T[], limit: number, run: (item: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(limit, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await run(item);
    }),
  );
}
