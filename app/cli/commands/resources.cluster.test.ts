import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace } from '../../../e2e/kube/clusterFixtures';
import { startTestbed, type Testbed } from '../../../e2e/kube-testbed/testbed.mjs';
import { installCrds } from '../../../main/kube/crds';
import { connectKube, type KubeConnection } from '../../../main/kube/KubeConnection';
import { CONTENT_TYPE } from '../../../main/kube/KubeRest';
import { isAppError } from '../../../shared/errors';
import { CliContext, CliExit } from '../CliContext';
import { registerResources } from './resources';

const NS = 'apply-test';
const toolPath = `/apis/langop.io/v1alpha1/namespaces/${NS}/languagetools/everything`;

interface LiveTool {
  spec: { port: number; image: string };
  metadata: { managedFields: Array<{ manager: string; operation: string }> };
}

describe('tooldeck apply --target cluster (server-side apply on a real kube-apiserver)', { timeout: 120_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let direct: KubeConnection;

  async function apply(text: string, ...flags: string[]) {
    const path = join(tmp, `apply-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(path, text);
    let stdout = '';
    let stderr = '';
    const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
    const program = new Command('tooldeck').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
    registerResources(program, new CliContext(io, () => join(tmp, 'data')));
    let code = 0;
    try {
      await program.parseAsync(['apply', '-f', path, '--target', 'cluster', '--kubeconfig', testbed.kubeconfigPath, '-n', NS, ...flags], { from: 'user' });
    } catch (error) {
      if (error instanceof CliExit) [code, stderr] = [error.exitCode, `${stderr}${error.message}\n`];
      else if (isAppError(error)) [code, stderr] = [error.code === 'InvalidInput' ? 2 : 1, `${stderr}${error.code}: ${error.message}\n`];
      else if (error instanceof CommanderError) code = 2;
      else throw error;
    }
    return { code, stdout, stderr };
  }

  const tool = (port: number) => `apiVersion: langop.io/v1alpha1\nkind: LanguageTool\nmetadata: {name: everything}\nspec:\n  image: node:22-slim\n  port: ${port}\n`;
  const agent = 'apiVersion: langop.io/v1alpha1\nkind: LanguageAgent\nmetadata: {name: assistant}\nspec:\n  tools: [{name: everything}]\n';
  const live = () => direct.rest.request<LiveTool>('GET', toolPath);

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-apply-cluster-'));
    // The first start may build the test bed binary (about 5 minutes on a cold cache).
    testbed = await startTestbed({ stderr: 'ignore', buildLog: () => {} });
    direct = connectKube({ kubeconfig: testbed.kubeconfigPath });
    await installCrds(direct.rest);
    await createNamespace(direct.rest, NS);
  }, 600_000);

  afterAll(async () => {
    direct?.close();
    await testbed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  it('creates with field manager tooldeck, then reports unchanged and configured objects', async () => {
    expect(await apply(`${tool(3001)}---\n${agent}`)).toEqual({ code: 0, stdout: `LanguageTool/everything created in ${NS}\nLanguageAgent/assistant created in ${NS}\n`, stderr: '' });
    const created = await live();
    expect(created.spec).toEqual({ image: 'node:22-slim', port: 3001, type: 'mcp', deploymentMode: 'service' });
    expect(created.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'tooldeck', operation: 'Apply' })]);
    expect((await apply(tool(3001))).stdout).toBe(`LanguageTool/everything unchanged in ${NS}\n`);
    expect((await apply(tool(3002), '--dry-run')).stdout).toBe(`LanguageTool/everything configured in ${NS} (dry run)\n`);
    expect((await live()).spec.port).toBe(3001);
    expect((await apply(tool(3002))).stdout).toBe(`LanguageTool/everything configured in ${NS}\n`);
    expect((await live()).spec.port).toBe(3002);
  });

  it('does not force: a field another manager owns is a conflict, reported with exit 1', async () => {
    await direct.rest.request('PATCH', toolPath, {
      body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name: 'everything', namespace: NS }, spec: { image: 'node:22-slim', port: 4000 } },
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager: 'someone-else', force: true },
    });
    const result = await apply(tool(3003));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^AlreadyExists: LanguageTool apply-test\/everything: .*conflict.*tooldeck applies without force/m);
    expect((await live()).spec.port).toBe(4000);
  });

  it('refuses Orloj kinds, which have no CRDs in the cluster, before writing anything', async () => {
    const result = await apply(`${agent.replace('assistant', 'second')}---\napiVersion: orloj.dev/v1\nkind: Tool\nmetadata: {name: t}\n`);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The cluster target serves LanguageTool and LanguageAgent only; not applied: Tool t. Apply them with --target local.');
    await expect(direct.rest.request('GET', `/apis/langop.io/v1alpha1/namespaces/${NS}/languageagents/second`)).rejects.toMatchObject({ status: 404 });
  });
});
