import { AppError } from '../../shared/errors';
import type { McpServerConfigInput } from '../../shared/mcp';
import { refusedVariable } from '../../shared/refusedEnvironment';
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
 *   with one sentence naming it and the flag that gives it;
 * - a loader or toolchain variable (shared/refusedEnvironment.ts) the registry supplies is refused
 *   unless the user names it (`allowEnv`); allowed, it is flagged;
 * - npm, PyPI and NuGet packages get no runtime arguments (each would reach npx, uvx or dnx before
 *   the pinned package, where it can change what runs); an OCI image gets only the docker run
 *   options of an allow-list (dockerArgumentProblem); package arguments come after the identifier.
 * What the registry supplies stays readable (`plainEnv`, `plainHeaders`); what the user types for
 * an input marked isSecret, or for a variable the registry does not declare, is sealed into the
 * secret store by McpService.save.
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
  /** Loader and toolchain variables the user allowed (allowEnv): in the line in plain text, and flagged. */
  flagged: string[];
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
  /** Names of `env` whose values the registry supplied (kept readable). */
  plainEnv: string[];
  allowEnv: string[];
  origin: InstallOrigin;
  warnings: string[];
  flagged: string[];
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

/** Whether a `{name}` template holds a value the user typed for a variable marked isSecret. */
function holdsTypedSecret(template: string, variables: Record<string, RegistryInput> | undefined, given: Record<string, string>): boolean {
  return [...template.matchAll(/\{([A-Za-z0-9_.-]+)\}/g)].some(([, name]) => variables?.[name!]?.isSecret === true && given[name!] !== undefined);
}

/**
 * Refuses a loader or toolchain variable a registry (or a bundle) supplies, unless the user named
 * it in allowEnv; an allowed one is flagged and warned about, its value shown.
 */
export function checkSuppliedVariable(name: string, value: string, allowEnv: readonly string[], planned: { warnings: string[]; flagged: string[] }, who = 'The registry') {
  const refused = refusedVariable(name);
  if (!refused) return;
  if (!allowEnv.some((allowed) => allowed.toUpperCase() === name.toUpperCase())) {
    throw invalid(`${who} sets ${name}=${JSON.stringify(value.slice(0, 300))}, a variable that changes which code runs (${refused.why}), so nothing is installed unless you name it with --allow-env ${name}.`);
  }
  planned.warnings.push(`${name}=${value.slice(0, 300)} comes from ${who.replace(/^The /, 'the ')} and is allowed by --allow-env: ${refused.why}.`);
  planned.flagged.push(name);
}

interface PlannedEnvironment {
  env: Record<string, string>;
  /** Names whose values are the registry's, or typed for an input not marked isSecret: kept readable. */
  plain: string[];
}

function environment(declared: readonly RegistryKeyValueInput[] | undefined, given: Record<string, string>, variables: Record<string, string>, used: Set<string>, allowEnv: readonly string[], planned: { warnings: string[]; flagged: string[] }): PlannedEnvironment {
  const env: Record<string, string> = {};
  const plain: string[] = [];
  for (const variable of declared ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable.name)) throw invalid(`The server declares an environment variable named "${variable.name.slice(0, 100)}", which is not a variable name.`);
    const typed = given[variable.name];
    const value = typed ?? (variable.value !== undefined ? fill(variable.value, variable.variables, variables, used, `environment variable ${variable.name}`) : variable.default);
    if (value === undefined || value === '') {
      if (variable.isRequired) throw invalid(`The environment variable ${variable.name} is required${variable.description ? ` (${variable.description.slice(0, 200)})` : ''}: give --env ${variable.name}=VALUE.`);
      continue;
    }
    checkChoice(value, variable, `environment variable ${variable.name}`);
    // A value the user gives is theirs to name; one the registry supplies may not change what runs.
    if (typed === undefined) checkSuppliedVariable(variable.name, value, allowEnv, planned);
    const secret = typed !== undefined ? variable.isSecret === true : variable.value !== undefined && holdsTypedSecret(variable.value, variable.variables, variables);
    env[variable.name] = value;
    if (!secret) plain.push(variable.name);
  }
  const declaredNames = new Set((declared ?? []).map((variable) => variable.name));
  for (const [name, value] of Object.entries(given)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw invalid(`"${name.slice(0, 100)}" is not an environment variable name.`);
    // The user's own variables, which the registry does not declare, are sealed as any typed value.
    if (!declaredNames.has(name)) env[name] = value;
  }
  return { env, plain };
}

/**
 * Why docker run should not get these registry-supplied options before the image, or undefined
 * when every one is on the allow-list: resource limits, named volumes, tmpfs, a working dir, a
 * network other than the host's, a user other than root, environment variables (not loader ones).
 * Everything else is refused, the host-reaching ones by name: --privileged, host paths as volumes
 * or mounts, --network host, --pid, --ipc, --cap-add, --device, --security-opt, --user 0/root.
 */
export function dockerArgumentProblem(argv: readonly string[], allowEnv: readonly string[] = []): string | undefined {
  const named = (flag: string) => ({ '-e': '--env', '-w': '--workdir', '-m': '--memory', '-v': '--volume', '-u': '--user', '-l': '--label', '--net': '--network' })[flag] ?? flag;
  const withValue = new Set(['--env', '--workdir', '--memory', '--memory-swap', '--cpus', '--tmpfs', '--network', '--volume', '--mount', '--user', '--pull', '--platform', '--label', '--shm-size', '--pids-limit', '--stop-timeout', '--cap-drop', '--hostname', '--ulimit']);
  const bare = new Set(['--init', '--read-only', '--interactive', '-i', '--rm']);
  const refusedOutright = ['--privileged', '--pid', '--ipc', '--cap-add', '--device', '--security-opt', '--userns', '--uts', '--cgroupns', '--volumes-from', '--env-file', '--entrypoint', '--add-host', '--gpus'];
  for (let i = 0; i < argv.length; i++) {
    const item = argv[i]!;
    if (!item.startsWith('-')) return `"${item.slice(0, 200)}" comes before the image, where docker would read it as the image to run`;
    const eq = item.indexOf('=');
    const flag = named(eq > 0 && item.startsWith('--') ? item.slice(0, eq) : item);
    if (refusedOutright.includes(flag)) return `${flag} gives the container a way out to this machine`;
    if (bare.has(flag)) continue;
    if (!withValue.has(flag)) return `${item.slice(0, 100)} is not one of the docker run options a registry may give`;
    let value: string;
    if (eq > 0 && item.startsWith('--')) value = item.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined) return `${flag} has no value`;
      value = next;
      i++;
    }
    if (flag === '--network' && (/^host$/i.test(value) || /^container:/i.test(value))) return `--network ${value.slice(0, 100)} puts the container on this machine's network`;
    if (flag === '--volume') {
      const source = value.split(':')[0]!;
      if (value.includes(':') && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(source)) return `--volume ${value.slice(0, 200)} mounts a path of this machine`;
    }
    if (flag === '--mount') {
      const type = /(?:^|,)type=([^,]*)/.exec(value)?.[1] ?? 'volume';
      const source = /(?:^|,)(?:source|src)=([^,]*)/.exec(value)?.[1];
      // volume-opt can make a "volume" a bind mount of any host path through the local driver.
      if ((type !== 'volume' && type !== 'tmpfs') || /(?:^|,)volume-(?:opt|driver)=/.test(value) || (source !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(source))) return `--mount ${value.slice(0, 200)} mounts a path of this machine`;
    }
    if (flag === '--user' && value.split(':').some((part) => /^(0|root)$/i.test(part))) return `--user ${value.slice(0, 100)} runs the container as root`;
    if (flag === '--env') {
      if (!value.includes('=')) return `--env ${value.slice(0, 100)} copies a variable of this machine's environment into the container`;
      const name = value.split('=')[0]!;
      const refused = refusedVariable(name);
      if (refused && !allowEnv.some((allowed) => allowed.toUpperCase() === name.toUpperCase())) return `--env ${value.slice(0, 200)} sets a variable that changes which code runs (${refused.why})`;
    }
  }
  return undefined;
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
  const flagged: string[] = [];
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
    const plainHeaders: string[] = [];
    for (const header of remote.headers ?? []) {
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(header.name)) throw invalid(`The remote declares a header named "${header.name.slice(0, 100)}", which is not a header name.`);
      const typed = choice.headers[header.name];
      const value = typed ?? (header.value !== undefined ? fill(header.value, header.variables, choice.variables, used, `header ${header.name}`) : header.default);
      if (value === undefined || value === '') {
        if (header.isRequired) throw invalid(`The header ${header.name} is required${header.description ? ` (${header.description.slice(0, 200)})` : ''}: give --header ${header.name}=VALUE.`);
        continue;
      }
      checkChoice(value, header, `header ${header.name}`);
      headers[header.name] = value;
      const secret = typed !== undefined ? header.isSecret === true : header.value !== undefined && holdsTypedSecret(header.value, header.variables, choice.variables);
      if (!secret) plainHeaders.push(header.name);
    }
    for (const [name, value] of Object.entries(choice.headers)) if (!(name in headers)) headers[name] = value;
    const config: McpServerConfigInput = { name: serverName, transport: remote.type === 'sse' ? 'sse' : 'http', url, headers, ...(plainHeaders.length ? { plainHeaders } : {}), description: description.slice(0, 500) };
    return { kind: 'server', config, origin: { registry, name: server.name, version: server.version, kind: 'remote' }, warnings, flagged };
  }

  const pkg = target.package;
  if (!(INSTALLABLE as readonly string[]).includes(pkg.registryType)) throw invalid(`${server.name} offers a ${pkg.registryType.slice(0, 40)} package, which Tooldeck does not install (it installs npm, pypi, oci, nuget and mcpb).`);
  if (pkg.transport.type !== 'stdio') throw invalid(`The ${pkg.registryType} package of ${server.name} serves ${pkg.transport.type.slice(0, 40)} on its own; Tooldeck installs stdio packages and remotes.`);
  const positional = [...choice.args];
  const runtimeArgs = argumentValues(pkg.runtimeArguments, [], {}, choice.variables, used, warnings, 'runtime');
  const packageArgs = argumentValues(pkg.packageArguments, positional, choice.namedArgs, choice.variables, used, warnings, 'package');
  if (positional.length) throw invalid(`${positional.length} --arg value(s) left over: the ${pkg.registryType} package of ${server.name} takes no more positional arguments.`);
  const { env, plain } = environment(pkg.environmentVariables, choice.env, choice.variables, used, choice.allowEnv, { warnings, flagged });
  const runner = { npm: 'npx', pypi: 'uvx', nuget: 'dnx' }[pkg.registryType as 'npm' | 'pypi' | 'nuget'];
  if (runtimeArgs.length && runner) {
    throw invalid(`The registry gives ${runner} the argument "${runtimeArgs[0]!.slice(0, 200)}" before the pinned ${pkg.registryType === 'pypi' ? 'PyPI' : pkg.registryType === 'nuget' ? 'NuGet' : 'npm'} package ${pkg.identifier.slice(0, 200)}, where it could change what runs, so it is not installed (runtime arguments are refused for npm, PyPI and NuGet packages).`);
  }
  if (runtimeArgs.length && pkg.registryType === 'oci') {
    const problem = dockerArgumentProblem(runtimeArgs, choice.allowEnv);
    if (problem) throw invalid(`The registry gives docker run ${runtimeArgs.join(' ').slice(0, 300)} before the image ${pkg.identifier.slice(0, 200)}, and ${problem}, so it is not installed.`);
    warnings.push(`The registry adds docker run options before the image: ${runtimeArgs.join(' ').slice(0, 300)}.`);
  }
  if (runtimeArgs.length && pkg.registryType === 'mcpb') throw invalid(`The registry gives the mcpb bundle of ${server.name} runtime arguments (${runtimeArgs.join(' ').slice(0, 200)}); a bundle's command comes from its manifest, so it is not installed.`);
  const origin = (identifier: string): InstallOrigin => ({ registry, name: server.name, version: server.version, kind: pkg.registryType, identifier });
  const stdio = (command: string, args: string[]): PlannedServer => ({
    kind: 'server',
    config: { name: serverName, transport: 'stdio', command, args, env, ...(plain.length ? { plainEnv: plain } : {}), description: description.slice(0, 500) },
    origin: origin(pkg.identifier),
    warnings,
    flagged,
  });

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
      if (url.protocol !== 'https:') throw invalid(`The mcpb package of ${server.name} is downloaded from ${url.href.slice(0, 200)}, which is not https, so it is not installed.`);
      if (!pkg.fileSha256) throw invalid(`The mcpb package of ${server.name} gives no fileSha256, so it cannot be verified and is not installed.`);
      return { kind: 'mcpb', serverName, url: url.href, sha256: pkg.fileSha256, env, plainEnv: plain, allowEnv: choice.allowEnv, args: packageArgs, userConfig: choice.variables, origin: origin(url.href), warnings, flagged };
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
  const planned = { warnings: [...plan.warnings], flagged: [...plan.flagged] };
  const manifestEnv: Record<string, string> = {};
  const plainEnv = new Set(plan.plainEnv);
  for (const [name, template] of Object.entries(launch.env ?? {})) {
    if (name in plan.env) continue;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw invalid(`The bundle's manifest sets an environment variable named "${name.slice(0, 100)}", which is not a variable name.`);
    const value = substitute(template);
    checkSuppliedVariable(name, value, plan.allowEnv, planned, "The bundle's manifest");
    manifestEnv[name] = value;
    // The manifest's own values are the bundle's, readable; one filled with a setting the user typed is sealed.
    if (!template.includes('${user_config.')) plainEnv.add(name);
  }
  const env = { ...manifestEnv, ...plan.env };
  return {
    kind: 'server',
    config: {
      name: plan.serverName,
      transport: 'stdio',
      command: substitute(launch.command),
      args: [...(launch.args ?? []).map(substitute), ...plan.args],
      env,
      ...(plainEnv.size ? { plainEnv: [...plainEnv].sort() } : {}),
      cwd: unpackedDir,
      ...(description ? { description: description.slice(0, 500) } : {}),
    },
    origin: plan.origin,
    ...planned,
  };
}
