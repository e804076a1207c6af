import { OperationClass } from '../../../shared/registry';
import { ORLOJ_API_VERSION, ORLOJ_DEFAULT_NAMESPACE, type ResourceMetadata } from '../../../shared/resources/meta';
import { ApplyMode, MatchMode, PermissionVerdict, type OperationRule, type ToolPermissionSpec } from '../../../shared/resources/toolPermission';
import { compact, readEnum, readObject, readString, readStringList, type RawObject } from './fieldReaders';
import { normalizeMetadata } from './normalizeMetadata';
import type { ResourceIssues } from './ResourceIssues';

export interface ToolPermissionObject {
  apiVersion: typeof ORLOJ_API_VERSION;
  kind: 'ToolPermission';
  metadata: ResourceMetadata;
  spec: ToolPermissionSpec;
}

/**
 * Orloj ToolPermission: tool_ref defaults to the name, action to invoke, match_mode to all,
 * apply_mode to global; lists are trimmed and deduplicated; scoped needs target_agents; operation
 * rules are trimmed and lowercased, class defaults to *, verdict to allow, anything else is rejected.
 */
export function normalizeToolPermissionResource(raw: RawObject, issues: ResourceIssues): ToolPermissionObject {
  const metadata = normalizeMetadata(raw.metadata, issues, { defaultNamespace: ORLOJ_DEFAULT_NAMESPACE });
  const spec = readObject(raw.spec, ['spec'], issues) ?? {};
  const applyMode = readEnum(spec.apply_mode, ['spec', 'apply_mode'], issues, ApplyMode.options) ?? 'global';
  const targetAgents = readStringList(spec.target_agents, ['spec', 'target_agents'], issues);
  if (applyMode === 'scoped' && !targetAgents?.length) issues.error(['spec', 'target_agents'], 'must name at least one agent when apply_mode is scoped');
  return {
    apiVersion: ORLOJ_API_VERSION,
    kind: 'ToolPermission',
    metadata,
    spec: compact({
      tool_ref: readString(spec.tool_ref, ['spec', 'tool_ref'], issues) ?? metadata.name,
      action: readString(spec.action, ['spec', 'action'], issues) ?? 'invoke',
      required_permissions: readStringList(spec.required_permissions, ['spec', 'required_permissions'], issues),
      match_mode: readEnum(spec.match_mode, ['spec', 'match_mode'], issues, MatchMode.options) ?? 'all',
      apply_mode: applyMode,
      target_agents: targetAgents,
      operation_rules: readRules(spec.operation_rules, issues),
    }),
  };
}

function readRules(value: unknown, issues: ResourceIssues): OperationRule[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    issues.error(['spec', 'operation_rules'], 'must be a list of {operation_class, verdict}');
    return undefined;
  }
  return value.flatMap((item, index): OperationRule[] => {
    const rule = readObject(item, ['spec', 'operation_rules', index], issues);
    if (!rule) return [];
    const operationClass = readEnum(rule.operation_class, ['spec', 'operation_rules', index, 'operation_class'], issues, [...OperationClass.options, '*'] as const);
    const verdict = readEnum(rule.verdict, ['spec', 'operation_rules', index, 'verdict'], issues, PermissionVerdict.options);
    return [{ operation_class: operationClass ?? '*', verdict: verdict ?? 'allow' }];
  });
}
