import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Command, CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CliContext, CliExit } from '../../app/cli/CliContext';
import { registerApprovals } from '../../app/cli/commands/approvals';
import { registerGateway } from '../../app/cli/commands/gateway';
import type { ToolApproval } from '../../shared/approvals';
import { createCore, type Core } from '../../main/core';
import { ClusterApprovals, type ToolApprovalObject } from '../../main/kube/ClusterApprovals';
import { isKubeApiError } from '../../main/kube/KubeApiError';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { installOperator } from '../../main/kube/operator/installOperator';
import { APPROVER_ROLE, GATEWAY_COMPONENT } from '../../main/kube/operator/gatewayManifests';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';
import { everythingStdio } from '../peers/mcp/everything';

const SYSTEM = 'tooldeck-system';
const APPROVALS = `/apis/orloj.dev/v1/namespaces/${SYSTEM}/toolapprovals`;

const pod = `x-claw:
  pod: clustergateway
services:
  builder:
    image: example/builder
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [get-sum]
`;
const permission = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: builder-sums-need-approval
spec:
  tool_ref: everything--get-sum
  apply_mode: scoped
  target_agents: [builder]
  operation_rules:
    - {operation_class: "*", verdict: approval_required}
`;

/**
 * Approvals as ToolApproval objects on the real kube-apiserver test bed: two in-process gateways
 * (each a core whose approvals live in the cluster, as `tooldeck gateway --kubeconfig` runs them)
 * with the gateway's ServiceAccount, people deciding with `tooldeck approvals --kubeconfig` as a
 * ServiceAccount bound to the tooldeck-approver Role, and the gateway's own account refused.
 */
describe('approvals as ToolApproval objects in a cluster', { timeout: 180_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let admin: KubeConnection;
  let gatewayKubeconfig: string;
  let approverKubeconfig: string;
  let approverUser: string;
  const cores: Core[] = [];
  const connections: KubeConnection[] = [];

  async function gatewayCore(name: string): Promise<Core> {
    const workspaceDir = mkdtempSync(join(tmp, `ws-${name}-`));
    writeFileSync(join(workspaceDir, 'agents.claw-pod.yml'), pod);
    writeFileSync(join(workspaceDir, 'permissions.yaml'), permission);
    const connection = connectKube({ kubeconfig: gatewayKubeconfig });
    connections.push(connection);
    const core = await createCore({
      exampleWorkspace: false,
      workspaceDir,
      appVersion: '0',
      host: 'web',
      dataDir: mkdtempSync(join(tmp, `data-${name}-`)),
      secretStore: new MemorySecretStore(),
      logger: silentLogger,
      approvals: (logger) => ClusterApprovals.open({ connection, namespace: SYSTEM, logger, holder: name }),
    });
    cores.push(core);
    await core.mcp.save({ config: everythingStdio('everything') as never });
    await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.get-sum')).toBeDefined(), { timeout: 30_000 });
    return core;
  }

  async function agent(core: Core) {
    const credential = await core.agents.credentials.create('builder');
    const running = await core.gateway.start({ port: 0 });
    const client = new Client({ name: 'agent-under-test', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url!), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
    return client;
  }

  async function cli(argv: string[]) {
    let stdout = '';
    let stderr = '';
    const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
    const program = new Command('tooldeck').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
    const context = new CliContext(io, () => join(tmp, 'cli-data'));
    registerApprovals(program, context);
    registerGateway(program, context);
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

  /** The Pending ToolApproval of the builder's call with these arguments, as the API server holds it. */
  async function pendingFor(input: Record<string, unknown>): Promise<ToolApprovalObject> {
    return vi.waitFor(
      async () => {
        const list = await admin.rest.request<{ items: ToolApprovalObject[] }>('GET', APPROVALS);
        const found = list.items.find((item) => item.status?.phase === 'Pending' && JSON.stringify(item.spec.input) === JSON.stringify(input));
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 30_000, interval: 50 },
    );
  }

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-cluster-approvals-'));
    testbed = await startTestbed({ stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    await installOperator(admin.rest, { namespace: SYSTEM, image: 'tooldeck/operator:test', dryRun: false, force: false, gateway: { replicas: 2 } });
    gatewayKubeconfig = join(tmp, 'gateway-kc');
    await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: GATEWAY_COMPONENT, path: gatewayKubeconfig });
    approverKubeconfig = join(tmp, 'approver-kc');
    approverUser = (await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: 'alice', path: approverKubeconfig })).user;
    await admin.rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${SYSTEM}/rolebindings`, {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-approves' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: APPROVER_ROLE }, subjects: [{ kind: 'ServiceAccount', name: 'alice', namespace: SYSTEM }] },
    });
  }, 600_000);

  afterAll(async () => {
    for (const core of cores) await core.close().catch(() => undefined);
    for (const connection of connections) connection.close();
    admin?.close();
    await testbed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  it('a call held on gateway A is a ToolApproval bound to the exact call; approved with the CLI by an approver, it completes', async () => {
    const a = await gatewayCore('gateway-a');
    const client = await agent(a);
    const call = client.callTool({ name: 'everything.get-sum', arguments: { b: 30, a: 12 } });
    const held = await pendingFor({ a: 12, b: 30 });
    expect(held.spec).toMatchObject({ tool: 'mcp:everything.get-sum', agent: 'builder', operation_class: expect.any(String), reason: expect.stringMatching(/builder-sums-need-approval/), ttl: '10m' });
    expect(held.metadata.annotations).toMatchObject({ 'tooldeck.dev/input-digest': expect.stringMatching(/^[0-9a-f]{64}$/), 'tooldeck.dev/holder': 'gateway-a' });

    const listed = await cli(['approvals', 'list', '--kubeconfig', approverKubeconfig, '--namespace', SYSTEM, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as ToolApproval[]).find((approval) => approval.metadata.name === held.metadata.name)).toMatchObject({ status: { phase: 'Pending' }, spec: { input: { a: 12, b: 30 } } });

    const approved = await cli(['approvals', 'approve', held.metadata.name, '--kubeconfig', approverKubeconfig, '--namespace', SYSTEM, '--comment', 'fine']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`Approved ${held.metadata.name}: mcp:everything.get-sum for agent builder may run once.`);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toMatch(/42/);
    const decided = await admin.rest.request<ToolApprovalObject>('GET', `${APPROVALS}/${held.metadata.name}`);
    // decided_by is the user the API server authenticated, not a name the decider chose.
    expect(decided.status).toMatchObject({ phase: 'Approved', decision: 'approved', decided_by: approverUser, comment: 'fine' });

    const again = await cli(['approvals', 'deny', held.metadata.name, '--kubeconfig', approverKubeconfig, '--namespace', SYSTEM]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Approval ${held.metadata.name} is no longer Pending: it was approved by ${approverUser}`);
    expect(await cli(['approvals', 'approve', held.metadata.name, '--kubeconfig', approverKubeconfig, '--by', 'someone-else'])).toMatchObject({ code: 2 });
    await client.close();
  });

  it('a denied call fails closed with who denied it; the gateway’s own account gets 403 deciding', async () => {
    const a = cores[0] ?? (await gatewayCore('gateway-a'));
    const client = await agent(a);
    const call = client.callTool({ name: 'everything.get-sum', arguments: { a: 1, b: 2 } });
    const held = await pendingFor({ a: 1, b: 2 });

    const byGateway = await cli(['approvals', 'approve', held.metadata.name, '--kubeconfig', gatewayKubeconfig, '--namespace', SYSTEM]);
    expect(byGateway.code).toBe(1);
    expect(byGateway.stderr).toMatch(/^These credentials may not decide ToolApprovals \(patch toolapprovals\/status; bind the tooldeck-approver Role\) in namespace tooldeck-system on https:\/\/127\.0\.0\.1:\d+: .*forbidden/);
    // Nor by hand: the status subresource is not the gateway's to write.
    const gateway = connectKube({ kubeconfig: gatewayKubeconfig });
    const direct = await gateway.rest
      .request('PATCH', `${APPROVALS}/${held.metadata.name}/status`, { body: { status: { phase: 'Approved', decision: 'approved', decided_by: 'x', decided_at: new Date().toISOString() } }, contentType: 'application/merge-patch+json' })
      .catch((error: unknown) => error);
    gateway.close();
    expect(isKubeApiError(direct) && direct.status).toBe(403);

    const denied = await cli(['approvals', 'deny', held.metadata.name, '--kubeconfig', approverKubeconfig, '--namespace', SYSTEM, '--comment', 'not now']);
    expect(denied.code, denied.stderr).toBe(0);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(`was denied by ${approverUser}: not now; the call did not run`);
    await client.close();
  });

  it('an expired approval fails closed and its ToolApproval is removed; a late decision is refused', async () => {
    const connection = connectKube({ kubeconfig: gatewayKubeconfig });
    connections.push(connection);
    const store = await ClusterApprovals.open({ connection, namespace: SYSTEM, holder: 'expiry-test' });
    try {
      const request = { agent: 'builder', tool: 'mcp:everything.get-sum', operationClass: 'write', input: { a: 5, b: 5 }, reason: 'test rule', policyVersion: 'v1', taskRef: 'test', ttlMs: 1_500 };
      let name = '';
      const held = store.hold(request, { onPending: (approval) => (name = approval.metadata.name) });
      await expect(held).rejects.toThrow(/expired: nobody decided within 1500ms, so the call did not run/);
      await store.settled();
      const gone = await admin.rest.request('GET', `${APPROVALS}/${name}`).catch((error: unknown) => error);
      expect(isKubeApiError(gone) && gone.status).toBe(404);
      const late = await cli(['approvals', 'approve', name, '--kubeconfig', approverKubeconfig, '--namespace', SYSTEM]);
      expect(late.code).toBe(1);
      expect(late.stderr).toContain(`No approval named ${name}.`);
    } finally {
      await store.close();
    }
  });

  it('two gateway replicas share the approvals: B sees the call A holds but cannot approve it; a person’s decision reaches A, which resumes', async () => {
    const a = cores[0] ?? (await gatewayCore('gateway-a'));
    const b = await gatewayCore('gateway-b');
    const client = await agent(a);
    const call = client.callTool({ name: 'everything.get-sum', arguments: { a: 20, b: 22 } });
    const seenByB = await vi.waitFor(
      async () => {
        const found = (await b.approvals.list()).find((approval) => approval.status.phase === 'Pending' && approval.spec.input.a === 20);
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 30_000, interval: 50 },
    );
    // A replica runs as the gateway's ServiceAccount: it may not decide, not even another replica's call.
    await expect(b.approvals.decide(seenByB.metadata.name, 'approve', 'ops')).rejects.toThrow(/may not decide ToolApprovals/);
    // The console of a person bound to tooldeck-approver, on the same namespace: its decision wakes A through the watch.
    const connection = connectKube({ kubeconfig: approverKubeconfig });
    connections.push(connection);
    const console_ = await ClusterApprovals.open({ connection, namespace: SYSTEM });
    try {
      await vi.waitFor(async () => expect((await console_.list()).map((approval) => approval.metadata.name)).toContain(seenByB.metadata.name));
      const decided = await console_.decide(seenByB.metadata.name, 'approve', 'a name the console offers');
      expect(decided.status).toMatchObject({ phase: 'Approved', decided_by: approverUser });
    } finally {
      await console_.close();
    }
    const result = await call;
    expect(JSON.stringify(result.content)).toMatch(/42/);
    // Every replica's inbox agrees on how it ended.
    await vi.waitFor(async () => expect((await b.approvals.get(seenByB.metadata.name)).status).toMatchObject({ phase: 'Approved', decided_by: approverUser }));
    await client.close();
  });

  it('a ToolApproval deleted while its call is held ends the call, which never runs', async () => {
    const a = cores[0] ?? (await gatewayCore('gateway-a'));
    const client = await agent(a);
    const call = client.callTool({ name: 'everything.get-sum', arguments: { a: 7, b: 7 } });
    const held = await pendingFor({ a: 7, b: 7 });
    await admin.rest.request('DELETE', `${APPROVALS}/${held.metadata.name}`);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(`its ToolApproval ${held.metadata.name} was deleted before anyone decided`);
    await client.close();
  });

  it('a replica that stops ends the calls it holds (they never run) and removes their ToolApprovals', async () => {
    const connection = connectKube({ kubeconfig: gatewayKubeconfig });
    connections.push(connection);
    const stopping = await ClusterApprovals.open({ connection, namespace: SYSTEM, holder: 'stopping' });
    let name = '';
    let settled = false;
    const pending = new Promise<void>((resolve) => {
      const held = stopping.hold(
        { agent: 'builder', tool: 'mcp:everything.get-sum', operationClass: 'write', input: { a: 3, b: 3 }, reason: 'test rule', policyVersion: 'v1', taskRef: 'test' },
        {
          onPending: (approval) => {
            name = approval.metadata.name;
            resolve();
          },
        },
      );
      void expect(held).rejects.toThrow(/was canceled while it waited for a person's decision \(Tooldeck stopped\); the call did not run/).then(() => (settled = true));
    });
    await pending;
    await stopping.close();
    await vi.waitFor(() => expect(settled).toBe(true));
    const gone = await admin.rest.request('GET', `${APPROVALS}/${name}`).catch((error: unknown) => error);
    expect(isKubeApiError(gone) && gone.status).toBe(404);
  });

  it('any replica deletes a Pending approval whose holder died, once past its expiry', async () => {
    const gateway = connectKube({ kubeconfig: gatewayKubeconfig });
    connections.push(gateway);
    // What a replica that died while holding leaves behind: a Pending ToolApproval nobody will end.
    await gateway.rest.request('POST', APPROVALS, {
      body: { apiVersion: 'orloj.dev/v1', kind: 'ToolApproval', metadata: { name: 'orphan-of-a-dead-replica', annotations: { 'tooldeck.dev/input-digest': 'x', 'tooldeck.dev/policy-version': 'v1' } }, spec: { tool: 't', agent: 'builder', input: {}, ttl: '1s' } },
    });
    const survivor = await ClusterApprovals.open({ connection: gateway, namespace: SYSTEM, holder: 'survivor', abandonedAfterMs: 0 });
    try {
      await vi.waitFor(async () => expect((await survivor.get('orphan-of-a-dead-replica')).status.phase).toBe('Expired'), { timeout: 10_000, interval: 100 });
      await survivor.sweep();
      const gone = await admin.rest.request('GET', `${APPROVALS}/orphan-of-a-dead-replica`).catch((error: unknown) => error);
      expect(isKubeApiError(gone) && gone.status).toBe(404);
    } finally {
      await survivor.close();
    }
  });

  it('tooldeck gateway --kubeconfig refuses, before listening, credentials that may not use ToolApprovals in the namespace', async () => {
    const refused = await cli(['gateway', '--kubeconfig', gatewayKubeconfig, '--namespace', 'default', '--port', '0']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^These credentials may not list ToolApprovals in namespace default on https:\/\/127\.0\.0\.1:\d+: .*forbidden/);
    expect(await cli(['gateway', '--kubeconfig', gatewayKubeconfig, '--in-cluster'])).toMatchObject({ code: 2, stderr: 'Use --kubeconfig or --in-cluster, not both\n' });
  });
});
