import { INHERIT_DEFAULTS, type ClawAgent, type ClawPod, type ToolGrant, type ToolGrantItem, type ToolsPolicy } from '../../../shared/resources/clawPod';
import type { ResourceMetadata } from '../../../shared/resources/meta';
import { compact, isPlainObject, readInteger, readObject, readString, shown, type RawObject } from './fieldReaders';
import type { IssuePath, ResourceIssues } from './ResourceIssues';

export interface ClawPodObject {
  kind: 'ClawPod';
  metadata: ResourceMetadata;
  pod: ClawPod;
}

const POLICY_FIELDS = ['max_rounds', 'timeout_per_tool_ms', 'total_timeout_ms', 'max_tool_result_bytes'] as const;
const DUPLICATES_FIELD = 'duplicate_tool_calls';
const SOURCE_ID = /^(mcp|http|a2a):.+/;

/**
 * Reads the `x-claw` parts of a pod file with Clawdapus's rules: pod-level `tools-defaults`,
 * per-service `tools` (grants of `allow: all` or names, `...` to inherit the defaults), and the hard
 * error for tools declared without a `cllama` proxy. Services without `x-claw` are not agents.
 */
export function normalizeClawPod(raw: RawObject, fallbackName: string, issues: ResourceIssues): ClawPodObject {
  const podClaw = readObject(raw['x-claw'], ['x-claw'], issues) ?? {};
  const name = readString(podClaw.pod, ['x-claw', 'pod'], issues) ?? fallbackName;
  const defaults = readGrantList(podClaw['tools-defaults'], ['x-claw', 'tools-defaults'], issues, false) as ToolGrant[] | undefined;
  const policy = readPolicy(podClaw['tools-policy'], ['x-claw', 'tools-policy'], issues);

  const agents: ClawAgent[] = [];
  const services = readObject(raw.services, ['services'], issues) ?? {};
  for (const [service, definition] of Object.entries(services)) {
    if (!isPlainObject(definition) || definition['x-claw'] === undefined) continue;
    const path = ['services', service, 'x-claw'];
    const claw = readObject(definition['x-claw'], path, issues);
    if (!claw) continue;
    const cllama = readString(claw.cllama, [...path, 'cllama'], issues);
    const tools = readGrantList(claw.tools, [...path, 'tools'], issues, true);
    if (tools !== undefined && !cllama) {
      issues.error([...path, 'tools'], 'needs a proxy: declare cllama (e.g. cllama: passthrough) on this service; tools without cllama are a hard error');
    }
    const agentPolicy = readPolicy(claw['tools-policy'], [...path, 'tools-policy'], issues);
    agents.push(compact({ name: service, cllama, tools, policy: agentPolicy }) as ClawAgent);
  }
  return { kind: 'ClawPod', metadata: { name }, pod: compact({ pod: name, defaults: defaults ?? [], policy, agents }) as ClawPod };
}

function readGrantList(value: unknown, path: IssuePath, issues: ResourceIssues, inheritAllowed: boolean): ToolGrantItem[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    issues.error(path, `must be a list of grants (service and allow), got ${shown(value)}`);
    return undefined;
  }
  const items: ToolGrantItem[] = [];
  let inherits = 0;
  value.forEach((item, index) => {
    const at = [...path, index];
    if (item === INHERIT_DEFAULTS) {
      if (!inheritAllowed) issues.error(at, '"..." inherits the pod defaults; it has no meaning inside tools-defaults');
      else if (++inherits > 1) issues.warn(at, '"..." appears more than once; the defaults are spliced in once');
      else items.push(INHERIT_DEFAULTS);
      return;
    }
    const grant = readGrant(item, at, issues);
    if (grant) items.push(grant);
  });
  return items;
}

function readGrant(value: unknown, path: IssuePath, issues: ResourceIssues): ToolGrant | undefined {
  if (!isPlainObject(value)) {
    issues.error(path, `must be a grant like {service: trading-api, allow: all} or "...", got ${shown(value)}`);
    return undefined;
  }
  const before = issues.errorCount;
  const service = readString(value.service, [...path, 'service'], issues);
  const source = readString(value.source, [...path, 'source'], issues);
  if (source !== undefined && !SOURCE_ID.test(source)) issues.error([...path, 'source'], `${shown(source)} is not a registry source; write mcp:<server>, http:<service> or a2a:<agent>`);
  if (service === undefined && source === undefined) issues.error(path, 'names no service: add service: <name>');
  if (service !== undefined && source !== undefined) issues.error(path, 'has both service and source; keep one');
  const allow = readAllow(value.allow, [...path, 'allow'], issues);
  // Tooldeck's extension of Clawdapus's grant: an MCP server's resources and prompts, relayed by the gateway (deny by default).
  const resources = readFlag(value.resources, [...path, 'resources'], issues);
  const prompts = readFlag(value.prompts, [...path, 'prompts'], issues);
  for (const key of Object.keys(value)) {
    if (!['service', 'source', 'allow', 'resources', 'prompts'].includes(key)) issues.warn([...path, key], 'is not a field of a grant and is ignored (known: service, source, allow, resources, prompts)', 'unknownField');
  }
  if (issues.errorCount > before || allow === undefined) return undefined;
  return compact({ service, source, allow, resources, prompts }) as ToolGrant;
}

function readAllow(value: unknown, path: IssuePath, issues: ResourceIssues): ToolGrant['allow'] | undefined {
  if (value === undefined || value === null) {
    issues.error(path, 'is required: "all" or a list of tool names (nothing is allowed by default)');
    return undefined;
  }
  if (typeof value === 'string') {
    if (value.trim().toLowerCase() === 'all') return 'all';
    issues.error(path, `${shown(value)} is neither "all" nor a list of tool names`);
    return undefined;
  }
  if (!Array.isArray(value)) {
    issues.error(path, `must be "all" or a list of tool names, got ${shown(value)}`);
    return undefined;
  }
  const names: string[] = [];
  value.forEach((item, index) => {
    const name = readString(item, [...path, index], issues);
    if (name === undefined) {
      if (typeof item === 'string' || item === null) issues.error([...path, index], 'is empty: write a tool name');
    }
    else if (!names.includes(name)) names.push(name);
  });
  if (value.length === 0) issues.warn(path, 'is empty: this grant allows nothing');
  return names;
}

function readPolicy(value: unknown, path: IssuePath, issues: ResourceIssues): Partial<ToolsPolicy> | undefined {
  const object = readObject(value, path, issues);
  if (!object) return undefined;
  const policy: Partial<ToolsPolicy> = {};
  for (const field of POLICY_FIELDS) {
    const number = readInteger(object[field], [...path, field], issues);
    if (number === undefined) continue;
    if (number < 1) issues.error([...path, field], `must be at least 1, got ${number}`);
    else policy[field] = number;
  }
  const duplicates = object[DUPLICATES_FIELD];
  if (duplicates === 'replay' || duplicates === 'reject') policy.duplicate_tool_calls = duplicates;
  else if (duplicates !== undefined) issues.error([...path, DUPLICATES_FIELD], 'must be replay or reject');
  for (const key of Object.keys(object)) {
    if (!(POLICY_FIELDS as readonly string[]).includes(key) && key !== DUPLICATES_FIELD) issues.warn([...path, key], `is not a budget limit and is ignored (known: ${[...POLICY_FIELDS, DUPLICATES_FIELD].join(', ')})`, 'unknownField');
  }
  return Object.keys(policy).length > 0 ? policy : undefined;
}

/** `resources: true` / `prompts: true`; anything but a boolean is an error (a string "false" must not grant). */
function readFlag(value: unknown, path: IssuePath, issues: ResourceIssues): true | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return true;
  issues.error(path, `must be true or false, got ${shown(value)}`);
  return undefined;
}
