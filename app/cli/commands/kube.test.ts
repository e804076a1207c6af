import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../../../e2e/kube-testbed/testbed.mjs';
import { connectKube, type KubeConnection } from '../../../main/kube/KubeConnection';
import { KubeInventory } from '../../../shared/kubeApi';
import { CliContext, CliExit } from '../CliContext';
import { registerKube } from './kube';

// `kube reconcile` records discovered definitions in the data dir's definitions.db: a folder of the test's own.
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-kube-cli-data-'));

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
  const program = new Command('tooldeck').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerKube(program, new CliContext(io, () => dataDir));
  let code = 0;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CliExit) {
      code = error.exitCode;
      stderr += `${error.message}\n`;
    } else if (error instanceof CommanderError) code = error.exitCode === 0 ? 0 : 2;
    else throw error;
  }
  return { code, stdout, stderr };
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('tooldeck kube', { timeout: 120_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let direct: KubeConnection;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-kube-cli-'));
    // The first start may build the test bed binary (about 5 minutes on a cold cache).
    testbed = await startTestbed({ stderr: 'ignore', buildLog: () => {} });
    direct = connectKube({ kubeconfig: testbed.kubeconfigPath });
  }, 600_000);

  afterAll(async () => {
    direct?.close();
    await testbed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it('exits 3 when the cluster cannot be reached', async () => {
    const kubeconfig = join(tmp, 'unreachable');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: gone\n  cluster:\n    server: https://127.0.0.1:${await closedPort()}\n    certificate-authority-data: ${testbed.caData}\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: gone\n  context: {cluster: gone, user: u}\ncurrent-context: gone\n`,
    );
    for (const command of [['kube', 'inventory'], ['kube', 'reconcile', '--once']]) {
      const result = await run([...command, '--kubeconfig', kubeconfig]);
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/Cannot reach the cluster at https:\/\/127\.0\.0\.1:\d+/);
    }
  });

  it('exits 2 for a context the kubeconfig does not have', async () => {
    const result = await run(['kube', 'inventory', '--kubeconfig', testbed.kubeconfigPath, '--context', 'no-such-context']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/No context "no-such-context"/);
  });

  it('install grants Roles in --watch-namespaces only (no ClusterRole unless --cluster-wide) and refuses namespaces that do not exist', async () => {
    await direct.rest.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } } });
    const dry = await run(['kube', 'install', '--kubeconfig', testbed.kubeconfigPath, '--image', 'tooldeck/operator:test', '--dry-run', '--watch-namespaces', 'team-a']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('--- Role team-a/tooldeck-operator: would be created');
    expect(dry.stdout).toContain('--- RoleBinding team-a/tooldeck-operator: would be created');
    expect(dry.stdout).toMatch(/^\+ +- --watch-namespaces=team-a$/m);
    expect(dry.stdout).not.toMatch(/ClusterRole/);
    expect(dry.stdout).toContain('reconciling namespace team-a (a Role in each); nothing was written');

    const clusterWide = await run(['kube', 'install', '--kubeconfig', testbed.kubeconfigPath, '--image', 'tooldeck/operator:test', '--dry-run', '--cluster-wide']);
    expect(clusterWide.code, clusterWide.stderr).toBe(0);
    expect(clusterWide.stdout).toContain('--- ClusterRole tooldeck-operator: would be created');
    expect(clusterWide.stdout).not.toMatch(/--- Role team-a/);

    const both = await run(['kube', 'install', '--kubeconfig', testbed.kubeconfigPath, '--cluster-wide', '--watch-namespaces', 'team-a']);
    expect(both).toMatchObject({ code: 2, stderr: 'Use --watch-namespaces or --cluster-wide, not both\n' });
    const missing = await run(['kube', 'install', '--kubeconfig', testbed.kubeconfigPath, '--image', 'tooldeck/operator:test', '--watch-namespaces', 'team-a,team-z']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('No namespace team-z in the cluster: create it first, or leave it out of --watch-namespaces\n');
    expect(await direct.rest.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/languagetools.langop.io').catch(() => undefined)).toBeUndefined();
  });

  it('reconcile --once installs the CRDs, converges and exits; inventory lists tools with their agents', async () => {
    const first = await run(['kube', 'reconcile', '--once', '--kubeconfig', testbed.kubeconfigPath]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Applied CRDs: languagetools\.langop\.io, languageagents\.langop\.io/);

    await direct.rest.request('POST', '/apis/langop.io/v1alpha1/namespaces/default/languagetools', {
      body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name: 'search' }, spec: { image: 'tooldeck.test/search:1', port: 9090 } },
    });
    await direct.rest.request('POST', '/apis/langop.io/v1alpha1/namespaces/default/languageagents', {
      body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageAgent', metadata: { name: 'researcher' }, spec: { tools: [{ name: 'search' }] } },
    });
    const second = await run(['kube', 'reconcile', '--once', '--kubeconfig', testbed.kubeconfigPath, '--namespace', 'default']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('CRDs up to date');
    expect(second.stdout).toMatch(/search\s+Pending\s+service\s+0\s+http:\/\/search\.default\.svc\.cluster\.local:9090\s+researcher/);
    await expect(direct.rest.request('GET', '/apis/apps/v1/namespaces/default/deployments/search')).resolves.toBeDefined();

    const inventory = await run(['kube', 'inventory', '--json', '--kubeconfig', testbed.kubeconfigPath]);
    expect(inventory.code).toBe(0);
    const parsed = KubeInventory.parse(JSON.parse(inventory.stdout));
    expect(parsed.namespaces).toEqual([
      {
        namespace: 'default',
        agents: ['researcher'],
        tools: [{ name: 'search', phase: 'Pending', deploymentMode: 'service', endpoint: 'http://search.default.svc.cluster.local:9090', toolCount: 0, agents: ['researcher'], deleting: false }],
      },
    ]);

    const third = await run(['kube', 'reconcile', '--once', '--kubeconfig', testbed.kubeconfigPath]);
    expect(third.stdout).toMatch(/Steady state: \d+ requests, 0 writes/);
  });
});
