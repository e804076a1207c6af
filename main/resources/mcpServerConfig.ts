import { AppError } from '../../shared/errors';
import { McpServerConfig } from '../../shared/mcp';
import type { McpServerSpec } from '../../shared/resources/mcpServer';
import { expandPlaceholders, type PlaceholderContext } from './commandPlaceholders';

/** The description that marks a saved server as the workspace's: the reconciler may change or remove it. */
export const WORKSPACE_MANAGED = 'managed by workspace';

export function isWorkspaceManaged(config: McpServerConfig): boolean {
  return config.description === WORKSPACE_MANAGED;
}

/**
 * The saved-server config an McpServer resource stands for. It is saved disabled so the service
 * does not reconnect it on its own: the resource's `reconnect` policy decides, in the reconciler.
 * Secrets stay in the secret store: `env[].secretRef` names become secret env vars and an http
 * server keeps the bearer token stored for it (set in the Servers view).
 */
export function mcpServerConfig(name: string, spec: McpServerSpec, placeholders: PlaceholderContext): McpServerConfig {
  const common = { name, enabled: false, description: WORKSPACE_MANAGED };
  if (spec.transport === 'http') {
    if (spec.auth?.profile === 'api_key_header') {
      throw new AppError('InvalidInput', 'auth profile api_key_header is not supported by the local target (no header name to send it in); use bearer');
    }
    return McpServerConfig.parse({ ...common, transport: 'http', url: spec.endpoint });
  }
  if (spec.image) throw new AppError('InvalidInput', 'image is not supported by the local target (it runs no containers); set command and args instead');
  const env = Object.fromEntries((spec.env ?? []).filter((variable) => variable.value !== undefined).map((variable) => [variable.name, variable.value!]));
  return McpServerConfig.parse({
    ...common,
    transport: 'stdio',
    command: expandPlaceholders(spec.command ?? '', placeholders),
    args: (spec.args ?? []).map((arg) => expandPlaceholders(arg, placeholders)),
    env,
    secretEnv: (spec.env ?? []).filter((variable) => variable.secretRef).map((variable) => variable.name),
  });
}
