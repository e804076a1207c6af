import { IsolationMode, OperationClass, type RiskLevel } from '../../../shared/registry';
import { ORLOJ_API_VERSION, ORLOJ_DEFAULT_NAMESPACE, type ResourceMetadata } from '../../../shared/resources/meta';
import { OrlojToolType, ToolAuthProfile, type OrlojToolSpec, type ToolAuthSpec } from '../../../shared/resources/orlojTool';
import { parseDuration } from '../../registry/policy/duration';
import { normalizeRuntime, type RawRuntime } from '../../registry/policy/normalizeRuntime';
import { normalizeOperationClasses } from '../../registry/policy/operationClasses';
import { normalizeRiskLevel } from '../../registry/policy/riskLevel';
import { compact, readEnum, readObject, readString, readStringList, shown, type RawObject } from './fieldReaders';
import { normalizeMetadata } from './normalizeMetadata';
import { readRuntime } from './readRuntime';
import type { ResourceIssues } from './ResourceIssues';

export interface OrlojToolObject {
  apiVersion: typeof ORLOJ_API_VERSION;
  kind: 'Tool';
  metadata: ResourceMetadata;
  spec: OrlojToolSpec;
}

/** Orloj Tool: every default and validation rule, each problem reported at its path. */
export function normalizeOrlojTool(raw: RawObject, issues: ResourceIssues): OrlojToolObject {
  const metadata = normalizeMetadata(raw.metadata, issues, { defaultNamespace: ORLOJ_DEFAULT_NAMESPACE });
  return { apiVersion: ORLOJ_API_VERSION, kind: 'Tool', metadata, spec: normalizeOrlojToolSpec(raw.spec, issues) };
}

export function normalizeOrlojToolSpec(value: unknown, issues: ResourceIssues): OrlojToolSpec {
  const spec = readObject(value, ['spec'], issues) ?? {};
  // Orloj: type defaults to http; unknown types are rejected.
  const type = readEnum(spec.type, ['spec', 'type'], issues, OrlojToolType.options) ?? 'http';
  const riskLevel = readRiskLevel(spec.risk_level, issues);
  const mcpServerRef = readString(spec.mcp_server_ref, ['spec', 'mcp_server_ref'], issues);
  const mcpToolName = readString(spec.mcp_tool_name, ['spec', 'mcp_tool_name'], issues);
  if (type === 'mcp') {
    if (!mcpServerRef) issues.error(['spec', 'mcp_server_ref'], 'is required when type is mcp (the McpServer that provides the tool)');
    if (!mcpToolName) issues.error(['spec', 'mcp_tool_name'], "is required when type is mcp (the tool's name in tools/list)");
  }
  // Kept as written: a multi-line description keeps its line breaks.
  const description = typeof spec.description === 'string' ? spec.description : readString(spec.description, ['spec', 'description'], issues);
  const inputSchema = readObject(spec.input_schema, ['spec', 'input_schema'], issues);
  return compact({
    type,
    endpoint: readString(spec.endpoint, ['spec', 'endpoint'], issues),
    description,
    input_schema: inputSchema,
    mcp_server_ref: mcpServerRef,
    mcp_tool_name: mcpToolName,
    // Orloj: capabilities are trimmed and deduplicated (case-insensitive).
    capabilities: readStringList(spec.capabilities, ['spec', 'capabilities'], issues, 'caseInsensitive'),
    operation_classes: readOperationClasses(spec.operation_classes, riskLevel, issues),
    risk_level: riskLevel,
    runtime: runtimeWithDefaults(readRuntime(spec.runtime, ['spec', 'runtime'], issues), riskLevel),
    auth: readAuth(spec.auth, issues),
  });
}

/** Orloj: risk_level defaults to low; anything outside low, medium, high, critical is rejected. */
function readRiskLevel(value: unknown, issues: ResourceIssues): RiskLevel {
  const text = readString(value, ['spec', 'risk_level'], issues);
  try {
    return normalizeRiskLevel(text);
  } catch {
    issues.error(['spec', 'risk_level'], `${shown(value)} is not one of low, medium, high, critical`);
    return 'low';
  }
}

/** Orloj: trimmed, lowercased, deduplicated; invalid values rejected; [read] or [write] by risk when empty. */
function readOperationClasses(value: unknown, riskLevel: RiskLevel, issues: ResourceIssues): OrlojToolSpec['operation_classes'] {
  const items = readStringList(value, ['spec', 'operation_classes'], issues, 'none') ?? [];
  const valid = items.filter((item, index) => {
    try {
      normalizeOperationClasses([item], riskLevel);
      return true;
    } catch {
      issues.error(['spec', 'operation_classes', index], `${shown(item)} is not one of ${OperationClass.options.join(', ')}`);
      return false;
    }
  });
  return normalizeOperationClasses(valid, riskLevel);
}

/**
 * Orloj runtime defaults, as duration strings: timeout 30s, isolation sandboxed for high/critical
 * risk and none otherwise, retry max_attempts 1, backoff 0s, max_backoff 30s, jitter none. Empty or
 * zero values count as unset, exactly as the registry reads them.
 */
export function runtimeWithDefaults(runtime: RawRuntime | undefined, riskLevel: RiskLevel): OrlojToolSpec['runtime'] {
  const policy = normalizeRuntime(runtime, riskLevel);
  const nonZero = (text: string | number | undefined, fallback: string) => (typeof text === 'string' && parseDuration(text) !== 0 ? text : fallback);
  return {
    timeout: nonZero(runtime?.timeout, '30s'),
    isolation_mode: IsolationMode.parse(policy.isolationMode),
    retry: {
      max_attempts: policy.retry.maxAttempts,
      backoff: typeof runtime?.retry?.backoff === 'string' ? runtime.retry.backoff : '0s',
      max_backoff: nonZero(runtime?.retry?.max_backoff, '30s'),
      jitter: policy.retry.jitter,
    },
  };
}

/** Orloj auth: profile defaults to bearer when secretRef is set; each profile's required fields. */
function readAuth(value: unknown, issues: ResourceIssues): ToolAuthSpec | undefined {
  const auth = readObject(value, ['spec', 'auth'], issues);
  if (!auth) return undefined;
  const secretRef = readString(auth.secretRef, ['spec', 'auth', 'secretRef'], issues);
  const explicitProfile = readEnum(auth.profile, ['spec', 'auth', 'profile'], issues, ToolAuthProfile.options);
  const profile = explicitProfile ?? (secretRef ? 'bearer' : undefined);
  const headerName = readString(auth.headerName, ['spec', 'auth', 'headerName'], issues);
  const tokenURL = readString(auth.tokenURL, ['spec', 'auth', 'tokenURL'], issues);
  if (explicitProfile && !secretRef) issues.error(['spec', 'auth', 'secretRef'], `is required when profile is set (profile is ${explicitProfile})`);
  if (profile === 'api_key_header' && !headerName) issues.error(['spec', 'auth', 'headerName'], 'is required when profile is api_key_header');
  if (profile === 'oauth2_client_credentials' && !tokenURL) issues.error(['spec', 'auth', 'tokenURL'], 'is required when profile is oauth2_client_credentials');
  const result = compact({ profile, secretRef, headerName, tokenURL, scopes: readStringList(auth.scopes, ['spec', 'auth', 'scopes'], issues) });
  return Object.keys(result).length > 0 ? result : undefined;
}
