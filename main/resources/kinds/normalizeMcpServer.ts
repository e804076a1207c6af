import { posix } from 'node:path';
import { ServerName } from '../../../shared/mcp';
import {
  MCP_IDLE_TIMEOUT_DEFAULT,
  MCP_RECONNECT_DEFAULTS,
  McpServerAuthProfile,
  McpTransportKind,
  type McpServerEnvVar,
  type McpServerSpec,
} from '../../../shared/resources/mcpServer';
import { ORLOJ_API_VERSION, ORLOJ_DEFAULT_NAMESPACE, type ResourceMetadata } from '../../../shared/resources/meta';
import { unknownPlaceholders } from '../commandPlaceholders';
import { compact, readDuration, readEnum, readInteger, readObject, readString, readStringList, type RawObject } from './fieldReaders';
import { normalizeMetadata } from './normalizeMetadata';
import { readRuntime } from './readRuntime';
import type { IssuePath, ResourceIssues } from './ResourceIssues';

export interface McpServerObject {
  apiVersion: typeof ORLOJ_API_VERSION;
  kind: 'McpServer';
  metadata: ResourceMetadata;
  spec: McpServerSpec;
}

/** Orloj McpServer: transport rules, env, reconnect and idle defaults; the name becomes a saved server's name. */
export function normalizeMcpServer(raw: RawObject, issues: ResourceIssues): McpServerObject {
  const metadata = normalizeMetadata(raw.metadata, issues, { defaultNamespace: ORLOJ_DEFAULT_NAMESPACE, name: ServerName });
  const spec = readObject(raw.spec, ['spec'], issues) ?? {};
  if (raw.spec === undefined || raw.spec === null) issues.error(['spec'], 'is required (it holds the transport)');
  const transport = readEnum(spec.transport, ['spec', 'transport'], issues, McpTransportKind.options);
  if (spec.transport === undefined || spec.transport === null || spec.transport === '') issues.error(['spec', 'transport'], 'is required: stdio or http');

  const image = readString(spec.image, ['spec', 'image'], issues);
  const command = readString(spec.command, ['spec', 'command'], issues);
  const args = readStringList(spec.args, ['spec', 'args'], issues, 'none');
  const endpoint = readString(spec.endpoint, ['spec', 'endpoint'], issues);
  if (transport === 'stdio' && !command && !image) issues.error(['spec', 'command'], 'is required when transport is stdio (unless image is set)');
  if (transport === 'http' && !endpoint) issues.error(['spec', 'endpoint'], 'is required when transport is http');
  if (transport === 'http' && endpoint && !isHttpUrl(endpoint)) issues.error(['spec', 'endpoint'], `"${endpoint}" is not an http:// or https:// URL`);
  if (image && transport && transport !== 'stdio') issues.error(['spec', 'image'], 'is only valid with transport stdio');
  const imagePullSecret = readString(spec.image_pull_secret, ['spec', 'image_pull_secret'], issues);
  if (imagePullSecret && !image) issues.error(['spec', 'image_pull_secret'], 'requires image to be set');
  checkPlaceholders(command, ['spec', 'command'], issues);
  args?.forEach((arg, index) => checkPlaceholders(arg, ['spec', 'args', index], issues));

  const auth = readObject(spec.auth, ['spec', 'auth'], issues);
  const toolFilter = readObject(spec.tool_filter, ['spec', 'tool_filter'], issues);
  const include = toolFilter ? readStringList(toolFilter.include, ['spec', 'tool_filter', 'include'], issues) : undefined;
  const reconnect = readObject(spec.reconnect, ['spec', 'reconnect'], issues);
  const maxAttempts = readInteger(reconnect?.max_attempts, ['spec', 'reconnect', 'max_attempts'], issues);
  if (maxAttempts !== undefined && maxAttempts < 0) issues.error(['spec', 'reconnect', 'max_attempts'], `must not be negative, got ${maxAttempts}`);
  const backoff = readNonNegativeDuration(reconnect?.backoff, ['spec', 'reconnect', 'backoff'], issues);
  const idleTimeout = readNonNegativeDuration(spec.idle_timeout, ['spec', 'idle_timeout'], issues);

  return {
    apiVersion: ORLOJ_API_VERSION,
    kind: 'McpServer',
    metadata,
    spec: compact({
      transport: transport ?? 'stdio',
      command,
      args,
      env: readEnv(spec.env, Boolean(image), issues),
      image,
      image_pull_secret: imagePullSecret,
      // Orloj: idle_timeout defaults to 0 (never evict); reconnect to 3 attempts, 2s apart. Zero counts as unset.
      idle_timeout: idleTimeout?.text ?? MCP_IDLE_TIMEOUT_DEFAULT,
      endpoint,
      auth: auth
        ? compact({
            secretRef: readString(auth.secretRef, ['spec', 'auth', 'secretRef'], issues),
            profile: readEnum(auth.profile, ['spec', 'auth', 'profile'], issues, McpServerAuthProfile.options) ?? 'bearer',
          })
        : undefined,
      tool_filter: include ? { include } : undefined,
      reconnect: {
        max_attempts: maxAttempts && maxAttempts > 0 ? maxAttempts : MCP_RECONNECT_DEFAULTS.max_attempts,
        backoff: backoff && backoff.ms > 0 ? backoff.text : MCP_RECONNECT_DEFAULTS.backoff,
      },
      default_tool_runtime: readRuntime(spec.default_tool_runtime, ['spec', 'default_tool_runtime'], issues),
    }),
  };
}

function readEnv(value: unknown, hasImage: boolean, issues: ResourceIssues): McpServerEnvVar[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    issues.error(['spec', 'env'], 'must be a list of {name, value} or {name, secretRef}');
    return undefined;
  }
  return value.flatMap((item, index): McpServerEnvVar[] => {
    const path = ['spec', 'env', index];
    const entry = readObject(item, path, issues);
    if (!entry) return [];
    const name = readString(entry.name, [...path, 'name'], issues);
    if (!name) issues.error([...path, 'name'], 'is required');
    const secretRef = readString(entry.secretRef, [...path, 'secretRef'], issues);
    const literal = entry.value === undefined || entry.value === null ? undefined : typeof entry.value === 'string' ? entry.value : String(entry.value);
    if (secretRef && literal !== undefined) issues.error(path, 'value and secretRef are mutually exclusive');
    const mountPath = readString(entry.mountPath, [...path, 'mountPath'], issues);
    if (mountPath && !hasImage) issues.error([...path, 'mountPath'], 'requires image to be set');
    if (mountPath && !posix.isAbsolute(mountPath)) issues.error([...path, 'mountPath'], `"${mountPath}" must be an absolute path`);
    return name ? [compact({ name, value: literal, secretRef, mountPath })] : [];
  });
}

function readNonNegativeDuration(value: unknown, path: IssuePath, issues: ResourceIssues) {
  const duration = readDuration(value, path, issues);
  if (duration && duration.ms < 0) {
    issues.error(path, `"${duration.text}" must not be negative`);
    return undefined;
  }
  return duration;
}

function checkPlaceholders(text: string | undefined, path: IssuePath, issues: ResourceIssues) {
  for (const name of text ? unknownPlaceholders(text) : []) issues.error(path, `unknown placeholder \${${name}}: use \${node} or \${module:<package path>}`);
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}
