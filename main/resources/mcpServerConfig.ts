import { AppError } from '../../shared/errors';
import { McpServerConfig, stdioLaunchLine } from '../../shared/mcp';
import { isCredentialName } from '../../shared/secrets';
import { isRefusedVariable } from '../../shared/refusedEnvironment';
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
/**
 * Placeholders kept as the folder wrote them: the line a user confirms says `${node}` and
 * `${module:…}` (Tooldeck's own Node.js and installed packages), so it reads the same in the desktop
 * app and the CLI, whose expansions differ, and survives an update that moves those paths.
 */
const LITERAL_PLACEHOLDERS: PlaceholderContext = { node: '${node}', resolveModule: (specifier) => `\${module:${specifier}}` };

/**
 * The exact command line an McpServer resource starts (stdio only): command, args, environment and
 * working directory, placeholders unexpanded. This is what the user confirms and the launch
 * allow-list holds; undefined for http servers and invalid specs.
 *
 * Environment values are shown as the folder wrote them, except those from a `secretRef` and those
 * whose name says they are a credential (`***`). Saved servers seal every value, but the line must
 * not: a folder that changes only `NODE_OPTIONS` or `LD_PRELOAD` has changed what runs, so it must
 * read as a new line and be confirmed again. Such loader and toolchain variables
 * (shared/refusedEnvironment.ts) are never masked, and the line ends with a shell comment flagging them.
 */
export function launchLineOf(name: string, spec: McpServerSpec): string | undefined {
  try {
    const config = mcpServerConfig(name, spec, LITERAL_PLACEHOLDERS);
    if (config.transport !== 'stdio') return undefined;
    // A loader or toolchain variable is never masked, whatever its name: it is shown and flagged.
    const credentials = Object.keys(config.env).filter((variable) => isCredentialName(variable) && !isRefusedVariable(variable));
    const env = Object.fromEntries(Object.entries(config.env).filter(([variable]) => !credentials.includes(variable)));
    const line = stdioLaunchLine({ ...config, env, secretEnv: [...new Set([...config.secretEnv, ...credentials])] });
    const flagged = [...Object.keys(config.env), ...config.secretEnv].filter(isRefusedVariable);
    return flagged.length ? `${line}  # flagged: ${flagged.join(', ')} can change which code runs` : line;
  } catch {
    return undefined;
  }
}

/** The command lines the valid stdio McpServers among these documents start (see launchLineOf). */
export function launchLines(documents: ReadonlyArray<{ identity?: { kind: string; name: string }; stored?: Record<string, unknown>; valid?: boolean }>): string[] {
  return documents.flatMap((doc) => {
    if (doc.identity?.kind !== 'McpServer' || doc.valid === false || !doc.stored) return [];
    const line = launchLineOf(doc.identity.name, (doc.stored as { spec: McpServerSpec }).spec);
    return line ? [line] : [];
  });
}

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
