import type { FetchLike } from '@modelcontextprotocol/client';
import { ServerName } from '../../shared/mcp';
import { definitionsHeld } from './toolDefinitions';
import type { LanguageToolObject } from './toolResources';

/**
 * The MCP sources the gateway takes from a cluster's LanguageTools (`gateway --agent-namespace`).
 *
 * A LanguageTool is written by whoever may edit LanguageTools in that namespace, and its status by
 * whoever may write `languagetools/status`: both are treated as hostile. A tool becomes a source
 * only when the endpoint its status publishes is the form Language Operator publishes for a tool in
 * service mode, naming the tool's own Service in its own namespace:
 *
 *   `http://<tool>.<namespace>.svc.cluster.local[:<port>][/<path>]`
 *
 * with nothing else in the URL (no user, query or fragment; path segments of letters, digits and
 * `._~-` only, no `.`/`..`). Any other host (an IP, `localhost` — a sidecar is reachable from its
 * agent's pod only —, another Service, another namespace, a name outside the cluster), scheme or
 * character is refused with a sentence, and the tool is no source. An empty path means `/mcp`, where
 * the operator's discovery reaches tools too. A tool being deleted, or whose changed definitions wait
 * for approval (the operator withholds its endpoint from agents then), is no source either.
 */

/** How the gateway reaches a LanguageTool's Service. */
export type ClusterToolReach =
  /** In the cluster (`--in-cluster`): the Service's cluster DNS name, directly. */
  | 'cluster-dns'
  /**
   * From outside (`--kubeconfig`): the API server's service proxy
   * (`/api/v1/namespaces/<ns>/services/<tool>:<port>/proxy/<path>`), with the kubeconfig's
   * credentials, which then need `get`/`create`/`delete` on `services/proxy` in the agent namespaces.
   */
  | 'service-proxy';

/** A LanguageTool's Service as its published endpoint names it, once checked. */
export interface ClusterToolEndpoint {
  service: string;
  namespace: string;
  port: number;
  path: string;
}

export type ClusterToolCheck = { ok: true; source: string; endpoint: ClusterToolEndpoint } | { ok: false; reason: string } | { ok: false; absent: true };

/**
 * The source name of a namespace's LanguageTool: `<tool>_<namespace>`. Kubernetes names hold no `_`,
 * so the name splits back at it and two namespaces' tools of one name are two sources. Undefined
 * when that is no valid source name (a tool name with dots, or over 64 characters in all).
 */
export function clusterToolSourceName(tool: string, namespace: string): string | undefined {
  const name = `${tool}_${namespace}`;
  return ServerName.safeParse(name).success ? name : undefined;
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\u2028\u2029]/;
const PATH = /^(\/[A-Za-z0-9._~-]+)*\/?$/;
const MAX_ENDPOINT = 2048;

/** Whether the LanguageTool `tool` of `namespace` is a source now, and where; or why not. */
export function checkClusterTool(tool: LanguageToolObject, namespace: string): ClusterToolCheck {
  const name = tool.metadata.name;
  const endpoint = tool.status?.endpoint as unknown;
  if (tool.metadata.deletionTimestamp || endpoint === undefined || endpoint === null || endpoint === '') return { ok: false, absent: true };
  if (definitionsHeld(tool.status)) return { ok: false, absent: true };
  const source = clusterToolSourceName(name, namespace);
  if (!source) return { ok: false, reason: `its name cannot be a source name (letters, digits and "-" only, ${64 - namespace.length - 1} characters at most in this namespace)` };
  if (typeof endpoint !== 'string') return { ok: false, reason: 'its status.endpoint is not a string' };
  if (endpoint.length > MAX_ENDPOINT) return { ok: false, reason: `its status.endpoint is longer than ${MAX_ENDPOINT} characters` };
  if (CONTROL_OR_SPACE.test(endpoint)) return { ok: false, reason: 'its status.endpoint holds control characters or spaces' };
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { ok: false, reason: 'its status.endpoint is not a URL' };
  }
  const expectedHost = `${name}.${namespace}.svc.cluster.local`;
  if (url.protocol !== 'http:') return { ok: false, reason: `its status.endpoint is not http:// (the form is http://${expectedHost}:<port>)` };
  if (url.username || url.password || url.search || url.hash || endpoint.includes('?') || endpoint.includes('#')) {
    return { ok: false, reason: 'its status.endpoint carries a user, a query or a fragment' };
  }
  if (url.hostname !== expectedHost) return { ok: false, reason: `its status.endpoint names ${url.hostname}, not the tool's own Service ${expectedHost}` };
  // Checked as written too: the URL parser resolves `%2e%2e` and `..`, which must not pass for a plain path.
  const writtenPath = endpoint.split('/').slice(3);
  if (!PATH.test(url.pathname) || /[%\\]/.test(endpoint) || writtenPath.some((segment) => segment === '.' || segment === '..')) {
    return { ok: false, reason: 'its status.endpoint path has characters other than letters, digits and ._~-' };
  }
  const port = url.port === '' ? 80 : Number(url.port);
  const path = url.pathname === '/' || url.pathname === '' ? '/mcp' : url.pathname;
  return { ok: true, source, endpoint: { service: name, namespace, port, path } };
}

/** The URL the gateway connects to for a checked endpoint, reached as `reach` says (`server`: the API server's URL). */
export function clusterToolUrl(endpoint: ClusterToolEndpoint, reach: ClusterToolReach, server: string): string {
  return reach === 'cluster-dns'
    ? `http://${endpoint.service}.${endpoint.namespace}.svc.cluster.local:${endpoint.port}${endpoint.path}`
    : `${server.replace(/\/+$/, '')}/api/v1/namespaces/${endpoint.namespace}/services/${endpoint.service}:${endpoint.port}/proxy${endpoint.path}`;
}

/**
 * How the gateway sends to a tool's Service by its cluster DNS name: never following a redirect, so
 * a tool cannot send the gateway (with its place in the cluster's network) anywhere but its own
 * Service. (The service proxy's fetch, KubeRest.fetch, follows none either.)
 */
export const fetchWithoutRedirects: FetchLike = (input, init) => fetch(input, { ...init, redirect: 'error' });
