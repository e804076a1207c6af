import { AppError } from '../../shared/errors';
import type { McpServerConfigInput } from '../../shared/mcp';
import { InstallChoice, type RegistryArgument, type RegistryInput, type RegistryKeyValueInput, type RegistryPackage, type RegistryTransport, type ServerJson } from '../../shared/mcpRegistry';

/**
 * Install planning: a server.json package or remote and what the user typed → the config of a
 * saved MCP server. Pure (no I/O), so every rule below is checked by property tests:
 * - a command is an argv array, never a shell string; values from the registry and the user are
 *   separate argv items, whatever characters they hold;
 * - the version is pinned (`npx -y name@version`, `uvx name==version`, `docker run … image:tag`,
 *   `dnx name@version`); a range, `latest` or a missing version is refused;
 * - identifiers and versions that could be read as an option (`-…`) or that hold characters no
 *   package name has are refused, so a registry cannot slip a flag to npx, uvx, docker or dnx;
 * - a required environment variable, argument, URL variable or header without a value is refused
 *   with one sentence naming it and the flag that gives it.
 * Every environment and header value is sealed into the secret store by McpService.save.
 */

/** Where a saved server came from, kept for the newer-version notice. */
export interface InstallOrigin {
  registry: string;
  name: string;
  version: string;
  /** `npm`, `pypi`, `oci`, `nuget`, `mcpb`, or `remote`. */
  kind: string;
  identifier?: string;
  /** The launch line or URL as installed (kept with the install record). */
  launch?: string;
  /** The tools its Server Card declared when it was installed (a remote's claim, compared with tools/list in the lock's review). */
  cardTools?: string[];
}

export interface PlannedServer {
  kind: 'server';
  config: McpServerConfigInput;
  origin: InstallOrigin;
  /** Things the user should know before confirming (shown with the command line). */
  warnings: string[];
}

/** An mcpb bundle: downloaded, checked against fileSha256 and unpacked before its command is known. */
export interface PlannedBundle {
  kind: 'mcpb';
  serverName: string;
  url: string;
  sha256: string;
  env: Record<string, string>;
  args: string[];
  /** Values for the bundle manifest's `${user_config.KEY}`. */
  userConfig: Record<string, string>;
  origin: InstallOrigin;
  warnings: string[];
}

export type InstallPlan = PlannedServer | PlannedBundle;

const INSTALLABLE = ['npm', 'pypi', 'oci', 'nuget', 'mcpb'] as const;

const invalid = (message: string) => new AppError('InvalidInput', message);

// Package names as their registries define them; none may start with "-".
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;
const PYPI_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const NUGET_ID = /^[A-Za-z0-9_](?:[A-Za-z0-9._-]*)$/;
// registry[:port]/path[:tag][@sha256:digest], lower-case path components as the distribution spec has them.
const OCI_REFERENCE = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;
const EXACT_VERSION = /^v?[0-9A-Za-z][0-9A-Za-z.+_-]*$/;

/** A version that names one release: no range (`^1`, `~1`, `>=1`, `1.x`, `1.*`), not `latest`. */
export function isExactVersion(version: string | undefined): boolean {
  if (!version || version.length > 128 || !EXACT_VERSION.test(version)) return false;
  if (/^latest$/i.test(version)) return false;
  return !version.split(/[.+-]/).some((part) => /^[xX*]$/.test(part));
}

/** The saved server's name made from a registry name: its last segment, tamed to ServerName's alphabet. */
export function defaultServerName(registryName: string): string {
  const last = registryName.slice(registryName.lastIndexOf('/') + 1);
  const tame = last.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[-_]+/, '').slice(0, 64);
  return tame || 'server';
}

function pickTarget(server: ServerJson, choice: InstallChoice): { package: RegistryPackage } | { remote: RegistryTransport; index: number } {
  const packages = server.packages ?? [];
  const remotes = server.remotes ?? [];
  const offered = () => [...new Set(packages.map((p) => p.registryType)), ...(remotes.length ? ['remote'] : [])].join(', ') || 'nothing to install';
  if (choice.remoteIndex !== undefined) {
    const remote = remotes[choice.remoteIndex];
    if (!remote) throw invalid(`${server.name} ${server.version} has ${remotes.length} remote(s); there is no remote ${choice.remoteIndex + 1}.`);
    return { remote, index: choice.remoteIndex };
  }
  if (choice.packageIndex !== undefined) {
    const pkg = packages[choice.packageIndex];
    if (!pkg) throw invalid(`${server.name} ${server.version} has ${packages.length} package(s); there is no package ${choice.packageIndex + 1}.`);
    return { package: pkg };
  }
  if (choice.packageType) {
    const pkg = packages.find((p) => p.registryType === choice.packageType);
    if (!pkg) throw invalid(`${server.name} ${server.version} has no ${choice.packageType} package; it offers: ${offered()}.`);
    return { package: pkg };
  }
  const pkg = packages.find((p) => (INSTALLABLE as readonly string[]).includes(p.registryType));
  if (pkg) return { package: pkg };
  if (remotes[0]) return { remote: remotes[0], index: 0 };
  throw invalid(`${server.name} ${server.version} has nothing Tooldeck can install (it offers: ${offered()}).`);
}

/** `{name}` placeholders of a value, filled from its own variables (user values first, then defaults). */
function fill(template: string, variables: Record<string, RegistryInput> | undefined, given: Record<string, string>, used: Set<string>, what: string, encode = (v: string) => v): string {
  return template.replace(/\{([A-Za-z0-9_.-]+)\}/g, (whole, name: string) => {
    const input = variables?.[name];
    if (!input) return whole;
    used.add(name);
    const value = given[name] ?? input.value ?? input.default;
    if (value === undefined || value === '') throw invalid(`The ${what} needs the variable ${name}${input.description ? ` (${input.description.slice(0, 200)})` : ''}: give --var ${name}=VALUE.`);
    checkChoice(value, input, `variable ${name}`);
    return encode(value);
  });
}

function checkChoice(value: string, input: RegistryInput, what: string) {
  if (input.choices?.length && !input.choices.includes(value)) throw invalid(`The ${what} must be one of ${input.choices.slice(0, 20).join(', ')}; "${value.slice(0, 100)}" is not.`);
}

function argumentValues(args: readonly RegistryArgument[] | undefined, positional: string[], named: Record<string, string>, variables: Record<string, string>, used: Set<string>, warnings: string[], what: string): string[] {
  const argv: string[] = [];
  for (const arg of args ?? []) {
    if (arg.type === 'named') {
      const flag = arg.name ?? '';
      if (!/^-{1,2}[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(flag)) throw invalid(`A named ${what} argument has the name "${flag.slice(0, 100)}", which is not a flag (--name).`);
      const given = named[flag];
      const value = given ?? (arg.value !== undefined ? fill(arg.value, arg.variables, variables, used, `${what} argument ${flag}`) : arg.default);
      if (value === undefined) {
        if (arg.isRequired) throw invalid(`The ${what} argument ${flag} is required${arg.description ? ` (${arg.description.slice(0, 200)})` : ''}: give --arg ${flag}=VALUE.`);
        continue;
      }
      checkChoice(value, arg, `argument ${flag}`);
      if (arg.isSecret) warnings.push(`The argument ${flag} is secret but goes on the command line, where other users of this machine can read it.`);
      argv.push(flag, value);
      continue;
    }
    const hint = arg.valueHint ?? 'value';
    const value = arg.value !== undefined ? fill(arg.value, arg.variables, variables, used, `${what} argument ${hint}`) : (positional.shift() ?? arg.default);
    if (value === undefined) {
      if (arg.isRequired) throw invalid(`The ${what} argument ${hint} is required${arg.description ? ` (${arg.description.slice(0, 200)})` : ''}: give --arg VALUE.`);
      continue;
    }
    checkChoice(value, arg, `argument ${hint}`);
    if (arg.isSecret) warnings.push(`The argument ${hint} is secret but goes on the command line, where other users of this machine can read it.`);
    argv.push(value);
  }
  return argv;
}

function environment(declared: readonly RegistryKeyValueInput[] | undefined, given: Record<string, string>, variables: Record<string, string>, used: Set<string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of declared ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable.name)) throw invalid(`The server declares an environment variable named "${variable.name.slice(0, 100)}", which is not a variable name.`);
    const value = given[variable.name] ?? (variable.value !== undefined ? fill(variable.value, variable.variables, variables, used, `environment variable ${variable.name}`) : variable.default);
    if (value === undefined || value === '') {
      if (variable.isRequired) throw invalid(`The environment variable ${variable.name} is required${variable.description ? ` (${variable.description.slice(0, 200)})` : ''}: give --env ${variable.name}=VALUE.`);
      continue;
    }
    checkChoice(value, variable, `environment variable ${variable.name}`);
    env[variable.name] = value;
  }
  for (const [name, value] of Object.entries(given)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw invalid(`"${name.slice(0, 100)}" is not an environment variable name.`);
    env[name] = value;
  }
  return env;
}

function requirePinned(pkg: RegistryPackage, server: ServerJson): string {
  if (!isExactVersion(pkg.version)) {
    throw invalid(`The ${pkg.registryType} package ${pkg.identifier.slice(0, 200)} of ${server.name} ${pkg.version ? `has the version "${pkg.version.slice(0, 100)}", which is not one exact release` : 'names no version'}, so it cannot be pinned.`);
  }
  return pkg.version!;
}

function requireName(pkg: RegistryPackage, pattern: RegExp) {
  if (pkg.identifier.length > 512 || !pattern.test(pkg.identifier)) throw invalid(`"${pkg.identifier.slice(0, 200)}" is not a valid ${pkg.registryType} package name, so it is not run.`);
}

/** `image:tag` or `image@sha256:…`, pinned: the identifier's own tag or digest, else the package version as the tag. */
function ociImage(pkg: RegistryPackage): string {
  if (pkg.identifier.length > 512 || !OCI_REFERENCE.test(pkg.identifier)) throw invalid(`"${pkg.identifier.slice(0, 200)}" is not a valid OCI image reference, so it is not run.`);
  const lastSegment = pkg.identifier.slice(pkg.identifier.lastIndexOf('/') + 1);
  if (lastSegment.includes('@sha256:')) return pkg.identifier;
  if (lastSegment.includes(':')) {
    if (/:latest$/i.test(lastSegment)) throw invalid(`The image ${pkg.identifier.slice(0, 200)} is tagged latest, so it cannot be pinned.`);
    return pkg.identifier;
  }
  if (!isExactVersion(pkg.version)) throw invalid(`The image ${pkg.identifier.slice(0, 200)} names no tag or digest and no exact version, so it cannot be pinned.`);
  return `${pkg.identifier}:${pkg.version}`;
}

/**
 * Plans the install of `server` as the user chose. Throws an InvalidInput AppError with one
 * sentence when something is missing or cannot be run safely.
 */
export function planInstall(server: ServerJson, registry: string, rawChoice: InstallChoice): InstallPlan {
  const choice = InstallChoice.parse(rawChoice);
  const serverName = choice.serverName ?? defaultServerName(server.name);
  const target = pickTarget(server, choice);
  const warnings: string[] = [];
  const used = new Set<string>();
  const description = (server.title ? `${server.title} — ` : '') + server.description;

  if ('remote' in target) {
    const remote = target.remote;
    if (remote.type !== 'streamable-http' && remote.type !== 'sse') throw invalid(`The remote of ${server.name} has the transport "${remote.type.slice(0, 40)}"; Tooldeck connects to streamable-http and sse remotes.`);
    if (!remote.url) throw invalid(`The remote of ${server.name} has no URL.`);
    for (const name of Object.keys(choice.variables)) if (!remote.variables?.[name] && !(remote.headers ?? []).some((h) => h.variables?.[name])) throw invalid(`The remote of ${server.name} has no variable ${name}; its variables are: ${Object.keys(remote.variables ?? {}).join(', ') || 'none'}.`);
    // Values are percent-encoded into the URL, so a value cannot change its host or path shape.
    let url = fill(remote.url, remote.variables, choice.variables, used, 'URL', encodeURIComponent);
    if (/\{[^}]*\}/.test(url)) throw invalid(`The remote URL ${url.slice(0, 300)} has a variable the server does not declare.`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw invalid(`The remote URL ${url.slice(0, 300)} is not a URL once filled in.`);
    }
    if (parsed.protocol !== 'https:') throw invalid(`The remote URL ${url.slice(0, 300)} is not https; registries list https remotes only.`);
    if (choice.endpointOrigin) {
      let origin: URL;
      try {
        origin = new URL(choice.endpointOrigin);
      } catch {
        throw invalid(`--endpoint-origin ${choice.endpointOrigin.slice(0, 200)} is not a URL.`);
      }
      if (origin.protocol !== 'https:' && origin.protocol !== 'http:') throw invalid(`--endpoint-origin must be an http:// or https:// URL.`);
      warnings.push(`Connecting to ${origin.origin} instead of ${parsed.origin}; headers are sent there.`);
      url = `${origin.origin}${parsed.pathname}${parsed.search}`;
    }
    const headers: Record<string, string> = {};
    for (const header of remote.headers ?? []) {
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(header.name)) throw invalid(`The remote declares a header named "${header.name.slice(0, 100)}", which is not a header name.`);
      const value = choice.headers[header.name] ?? (header.value !== undefined ? fill(header.value, header.variables, choice.variables, used, `header ${header.name}`) : header.default);
      if (value === undefined || value === '') {
        if (header.isRequired) throw invalid(`The header ${header.name} is required${header.description ? ` (${header.description.slice(0, 200)})` : ''}: give --header ${header.name}=VALUE.`);
        continue;
      }
      checkChoice(value, header, `header ${header.name}`);
      headers[header.name] = value;
    }
    for (const [name, value] of Object.entries(choice.headers)) if (!(name in headers)) headers[name] = value;
    const config: McpServerConfigInput = { name: serverName, transport: remote.type === 'sse' ? 'sse' : 'http', url, headers, description: description.slice(0, 500) };
    return { kind: 'server', config, origin: { registry, name: server.name, version: server.version, kind: 'remote' }, warnings };
  }

  const pkg = target.package;
  if (!(INSTALLABLE as readonly string[]).includes(pkg.registryType)) throw invalid(`${server.name} offers a ${pkg.registryType.slice(0, 40)} package, which Tooldeck does not install (it installs npm, pypi, oci, nuget and mcpb).`);
  if (pkg.transport.type !== 'stdio') throw invalid(`The ${pkg.registryType} package of ${server.name} serves ${pkg.transport.type.slice(0, 40)} on its own; Tooldeck installs stdio packages and remotes.`);
  const positional = [...choice.args];
  const runtimeArgs = argumentValues(pkg.runtimeArguments, [], {}, choice.variables, used, warnings, 'runtime');
  const packageArgs = argumentValues(pkg.packageArguments, positional, choice.namedArgs, choice.variables, used, warnings, 'package');
  if (positional.length) throw invalid(`${positional.length} --arg value(s) left over: the ${pkg.registryType} package of ${server.name} takes no more positional arguments.`);
  const env = environment(pkg.environmentVariables, choice.env, choice.variables, used);
  if (runtimeArgs.length) warnings.push(`The registry adds arguments for the runtime itself: ${runtimeArgs.join(' ').slice(0, 300)}.`);
  const origin = (identifier: string): InstallOrigin => ({ registry, name: server.name, version: server.version, kind: pkg.registryType, identifier });
  const stdio = (command: string, args: string[]): PlannedServer => ({ kind: 'server', config: { name: serverName, transport: 'stdio', command, args, env, description: description.slice(0, 500) }, origin: origin(pkg.identifier), warnings });

  switch (pkg.registryType) {
    case 'npm': {
      requireName(pkg, NPM_NAME);
      return stdio('npx', ['-y', ...runtimeArgs, `${pkg.identifier}@${requirePinned(pkg, server)}`, ...packageArgs]);
    }
    case 'pypi': {
      requireName(pkg, PYPI_NAME);
      return stdio('uvx', [...runtimeArgs, `${pkg.identifier}==${requirePinned(pkg, server)}`, ...packageArgs]);
    }
    case 'nuget': {
      requireName(pkg, NUGET_ID);
      return stdio('dnx', [...runtimeArgs, `${pkg.identifier}@${requirePinned(pkg, server)}`, '--yes', ...(packageArgs.length ? ['--', ...packageArgs] : [])]);
    }
    case 'oci': {
      // docker passes each variable named with -e from its own environment: the values stay sealed in the config.
      const image = ociImage(pkg);
      return stdio('docker', ['run', '-i', '--rm', ...Object.keys(env).flatMap((name) => ['-e', name]), ...runtimeArgs, image, ...packageArgs]);
    }
    default: {
      // mcpb: the identifier is the bundle's download URL; fileSha256 is required and checked before unpacking.
      let url: URL;
      try {
        url = new URL(pkg.identifier);
      } catch {
        throw invalid(`The mcpb package of ${server.name} names "${pkg.identifier.slice(0, 200)}", which is not a download URL.`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`The mcpb package of ${server.name} is not downloaded over http(s).`);
      if (!pkg.fileSha256) throw invalid(`The mcpb package of ${server.name} gives no fileSha256, so it cannot be verified and is not installed.`);
      return { kind: 'mcpb', serverName, url: url.href, sha256: pkg.fileSha256, env, args: packageArgs, userConfig: choice.variables, origin: origin(url.href), warnings };
    }
  }
}

/** What an mcpb manifest's `server` says to run (`mcp_config`). */
export interface McpbLaunch {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

/**
 * The stdio config of an unpacked bundle: the manifest's command with `${__dirname}` as the unpack
 * folder and `${user_config.KEY}` from `--var KEY=VALUE`; the user's env over the manifest's.
 */
export function planBundleLaunch(plan: PlannedBundle, launch: McpbLaunch, unpackedDir: string, description?: string): PlannedServer {
  const substitute = (value: string) =>
    value.replace(/\$\{([A-Za-z0-9_.]+)\}/g, (whole, key: string) => {
      if (key === '__dirname') return unpackedDir;
      if (key.startsWith('user_config.')) {
        const name = key.slice('user_config.'.length);
        const given = plan.userConfig[name];
        if (given === undefined) throw invalid(`The bundle needs the setting ${name}: give --var ${name}=VALUE.`);
        return given;
      }
      return whole;
    });
  if (!launch.command) throw invalid('The bundle manifest names no command.');
  const env = { ...Object.fromEntries(Object.entries(launch.env ?? {}).map(([k, v]) => [k, substitute(v)])), ...plan.env };
  return {
    kind: 'server',
    config: { name: plan.serverName, transport: 'stdio', command: substitute(launch.command), args: [...(launch.args ?? []).map(substitute), ...plan.args], env, cwd: unpackedDir, ...(description ? { description: description.slice(0, 500) } : {}) },
    origin: plan.origin,
    warnings: plan.warnings,
  };
}
