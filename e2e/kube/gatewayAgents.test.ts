import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../app/cli/program';
import { createCore, type Core } from '../../main/core';
import { ClusterAgents } from '../../main/kube/ClusterAgents';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { CONTENT_TYPE } from '../../main/kube/KubeRest';
import { GATEWAY_AGENT_RULES, GATEWAY_COMPONENT } from '../../main/kube/operator/gatewayManifests';
import { installOperator } from '../../main/kube/operator/installOperator';
import { Operator } from '../../main/kube/operator/Operator';
import { OPERATOR_COMPONENT } from '../../main/kube/operator/operatorLease';
import { silentLogger, type Logger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';
import { everythingStdio } from '../peers/mcp/everything';
import { cliPath } from '../support/tooldeckServer';
import { agentsPath, createEndpoints, createRunningPod, eventually, getOrUndefined, markDeploymentReady, toolsPath } from './clusterFixtures';
import { netnsUnavailableReason, startMcpInNetns, type NetnsMcpServer } from './mcpInNetns';

const SYSTEM = 'tooldeck-system';
/** Its agents opt in one by one (a label on the LanguageAgent). */
const TEAM_A = 'team-a';
/** Opted in as a whole (a label on the namespace). */
const TEAM_B = 'team-b';
/** The gateway watches it, the operator does not: the test writes its LanguageTools' status as the operator would (and as a hostile writer could). */
const TEAM_C = 'team-c';
/** Not given to --agent-namespace: its LanguageTools are never sources. */
const OUTSIDE = 'team-d';
const GATEWAY_ENDPOINT = `http://tooldeck-gateway.${SYSTEM}.svc.cluster.local:7411/mcp`;
/** The apiserver's service proxy refuses loopback endpoints: the tools' server runs in a network namespace. */
const skipReason = netnsUnavailableReason();

interface SecretView {
  type: string;
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: Array<{ kind: string; name: string; uid: string }> };
  data: Record<string, string>;
}
interface AgentView {
  metadata: { uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Language Operator agents that opt in to the gateway, on the real kube-apiserver test bed: the
 * operator (in process, with its ServiceAccount and the Roles `kube install --gateway` grants)
 * issues credentials and writes config.yaml; a gateway core (as `tooldeck gateway --kubeconfig
 * --agent-namespace` runs it, with the gateway's ServiceAccount and an empty data folder) lets
 * those credentials in, takes its MCP sources from the LanguageTools of those namespaces (the
 * operator publishes each one's endpoint; server-everything serves them from a network namespace,
 * reached through the API server's service proxy), lists exactly the LanguageAgent's tools, and
 * refuses a credential as soon as its agent opts out or is deleted.
 */
describe.skipIf(!!skipReason)('Language Operator agents through the gateway on a real kube-apiserver', { timeout: 180_000 }, () => {
  let tmp: string;
  let dataDir: string;
  let mcp: NetnsMcpServer;
  const warnings: string[] = [];
  const recordingLogger: Logger = { ...silentLogger, warn: (message) => void warnings.push(message) };
  let testbed: Testbed;
  let admin: KubeConnection;
  let operator: Operator;
  let core: Core;
  let gatewayUrl: string;
  let gatewayKubeconfig: string;
  const clients: Client[] = [];

  const secretPath = (ns: string, agent: string) => `/api/v1/namespaces/${ns}/secrets/tooldeck-gateway-${agent}`;
  const secretOf = (ns: string, agent: string) => getOrUndefined<SecretView>(admin.rest, secretPath(ns, agent));
  const credentialOf = async (ns: string, agent: string) => {
    const secret = await eventually(() => secretOf(ns, agent), `the credential Secret of ${ns}/${agent}`);
    return Buffer.from(secret.data.credential!, 'base64').toString('utf8');
  };
  const agentOf = (ns: string, agent: string) => admin.rest.request<AgentView>('GET', `${agentsPath(ns)}/${agent}`);
  const configOf = async (ns: string, agent: string) => {
    const cm = await getOrUndefined<{ data?: Record<string, string> }>(admin.rest, `/api/v1/namespaces/${ns}/configmaps/${agent}-config`);
    return cm?.data?.['config.yaml'] === undefined ? undefined : { text: JSON.stringify(cm), config: parse(cm.data['config.yaml']) as { tools?: Record<string, unknown> } };
  };
  const createTool = (ns: string, name: string) =>
    admin.rest.request('POST', toolsPath(ns), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name, namespace: ns }, spec: { image: `tooldeck.test/${name}:1` } } });
  const createAgent = (ns: string, name: string, tools: string[], labels: Record<string, string> = {}) =>
    admin.rest.request('POST', agentsPath(ns), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageAgent', metadata: { name, namespace: ns, labels }, spec: { tools: tools.map((t) => ({ name: t })) } } });

  /** What the gateway answers a credential with: the HTTP status of an MCP initialize. */
  const gatewayStatus = async (credential: string, url = gatewayUrl) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }),
    });
    await response.body?.cancel();
    return response.status;
  };
  const toolsListedFor = async (credential: string) => {
    const client = new Client({ name: 'language-agent-under-test', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(gatewayUrl), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  };

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-gateway-agents-'));
    mcp = await startMcpInNetns({ subnet: 35 });
    testbed = await startTestbed({ stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    await admin.rest.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TEAM_A } } });
    await admin.rest.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TEAM_B, labels: { 'tooldeck.dev/gateway': 'enabled' } } } });
    for (const ns of [TEAM_C, OUTSIDE]) await admin.rest.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
    await installOperator(admin.rest, { namespace: SYSTEM, image: 'tooldeck/operator:test', dryRun: false, force: false, watchNamespaces: [TEAM_A, TEAM_B], gateway: { replicas: 1 } });
    const operatorKubeconfig = join(tmp, 'operator-kc');
    await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: OPERATOR_COMPONENT, path: operatorKubeconfig });
    gatewayKubeconfig = join(tmp, 'gateway-kc');
    await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: GATEWAY_COMPONENT, path: gatewayKubeconfig });
    // team-c is an agent namespace the operator does not watch: the gateway's Role there as `kube install --gateway` makes it.
    await grantGateway(TEAM_C, 'tooldeck-gateway-agents', GATEWAY_AGENT_RULES);
    // Run from outside the cluster (--kubeconfig), the gateway reaches the tools through the API server's service proxy: what its operator grants it for that.
    for (const ns of [TEAM_A, TEAM_B, TEAM_C]) await grantGateway(ns, 'tooldeck-gateway-service-proxy', [{ apiGroups: [''], resources: ['services/proxy'], verbs: ['get', 'create', 'delete'] }]);

    // The operator as `kube install --gateway` runs it: its own ServiceAccount, --gateway-namespace.
    operator = new Operator({
      connection: connectKube({ kubeconfig: operatorKubeconfig }),
      namespaces: [TEAM_A, TEAM_B],
      identity: 'operator-0',
      leaseNamespace: SYSTEM,
      leaseName: OPERATOR_COMPONENT,
      timings: { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000 },
      logger: silentLogger,
      version: '0',
      listen: { host: '127.0.0.1', port: 0 },
      gateway: { namespace: SYSTEM },
    });
    await operator.start();

    // Orloj's ToolPermission kind, as an Orloj installation serves it (a test fixture: Tooldeck installs no such CRD).
    await admin.rest.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: orlojToolPermissionCrd });
    await eventually(async () => (await getOrUndefined(admin.rest, `/apis/orloj.dev/v1/namespaces/${TEAM_A}/toolpermissions`)) !== undefined, 'the ToolPermission API served');

    // The gateway as `gateway --kubeconfig K --agent-namespace team-a --agent-namespace team-b` runs it, with the gateway's ServiceAccount.
    // The tools' pods, as the cluster would run them: server-everything, behind each tool's Service.
    for (const [ns, tool] of [[TEAM_A, 'everything'], [TEAM_A, 'extra'], [TEAM_B, 'other']] as const) {
      await createRunningPod(admin.rest, ns, `${tool}-pod`, mcp.address, { 'langop.io/tool': tool });
      await createEndpoints(admin.rest, ns, tool, `${tool}-pod`, mcp.address, mcp.port);
    }
    await createTool(TEAM_A, 'everything');
    await createTool(TEAM_A, 'extra');
    await createTool(TEAM_B, 'other');
    for (const [ns, tool] of [[TEAM_A, 'everything'], [TEAM_A, 'extra'], [TEAM_B, 'other']] as const) {
      await eventually(() => getOrUndefined(admin.rest, `/apis/apps/v1/namespaces/${ns}/deployments/${tool}`), `the Deployment of ${ns}/${tool}`);
      await markDeploymentReady(admin.rest, ns, tool);
    }

    // The gateway as `gateway --kubeconfig K --agent-namespace team-a --agent-namespace team-b --agent-namespace team-c` runs it, with the
    // gateway's ServiceAccount and nothing configured in its data folder: its sources are the LanguageTools.
    dataDir = mkdtempSync(join(tmp, 'data-'));
    core = await createCore({
      exampleWorkspace: false,
      workspaceDir: mkdtempSync(join(tmp, 'ws-')),
      appVersion: '0',
      host: 'web',
      dataDir,
      secretStore: new MemorySecretStore(),
      logger: recordingLogger,
      clusterAgents: (logger) => ClusterAgents.open({ connection: connectKube({ kubeconfig: gatewayKubeconfig }), namespaces: [TEAM_A, TEAM_B, TEAM_C], logger, closeConnection: true, toolReach: 'service-proxy' }),
    });
    await vi.waitFor(() => {
      expect(core.catalog.resolve('mcp:everything_team-a.echo')).toBeDefined();
      expect(core.catalog.resolve('mcp:extra_team-a.echo')).toBeDefined();
      expect(core.catalog.resolve('mcp:other_team-b.echo')).toBeDefined();
    }, { timeout: 60_000 });
    gatewayUrl = (await core.gateway.start({ port: 0 })).url!;

    // builder's pod template, as Language Operator would make it (labelled for Tooldeck): its container is given the credential.
    await admin.rest.request('POST', `/apis/apps/v1/namespaces/${TEAM_A}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'builder', namespace: TEAM_A, labels: { 'tooldeck.dev/agent': 'builder' } },
        spec: {
          selector: { matchLabels: { app: 'builder' } },
          template: { metadata: { labels: { app: 'builder' } }, spec: { containers: [{ name: 'agent', image: 'tooldeck.test/agent:1', env: [{ name: 'MODEL', value: 'm' }] }, { name: 'log-shipper', image: 'tooldeck.test/logs:1' }] } },
        },
      },
    });
    await createAgent(TEAM_A, 'builder', ['everything'], { 'tooldeck.dev/gateway': 'enabled' });
    await createAgent(TEAM_A, 'plain', ['everything']);
    await createAgent(TEAM_B, 'helper', ['other']);
  }, 600_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await core?.close();
    await operator?.stop();
    admin?.close();
    await testbed?.stop();
    await mcp?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  /** A Role in `ns` for the gateway's ServiceAccount, bound to it. */
  const grantGateway = async (ns: string, name: string, rules: unknown) => {
    await admin.rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: ns }, rules } });
    await admin.rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name, namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name: GATEWAY_COMPONENT, namespace: SYSTEM }],
      },
    });
  };

  it('an opted-in agent gets its credential Secret (owned by the agent) and the hash on itself; its config.yaml sends each tool to the gateway and holds no secret', async () => {
    const credential = await credentialOf(TEAM_A, 'builder');
    const [name, secret] = [credential.slice(0, credential.indexOf(':')), credential.slice(credential.indexOf(':') + 1)];
    expect(name).toBe('builder.team-a');
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    const agent = await agentOf(TEAM_A, 'builder');
    const stored = (await secretOf(TEAM_A, 'builder'))!;
    expect(stored.type).toBe('Opaque');
    expect(stored.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'LanguageAgent', name: 'builder', uid: agent.metadata.uid })]);
    expect(stored.metadata.labels).toMatchObject({ 'tooldeck.dev/gateway-agent': 'builder', 'app.kubernetes.io/managed-by': 'tooldeck' });
    await eventually(async () => (await agentOf(TEAM_A, 'builder')).metadata.annotations?.['tooldeck.dev/gateway-credential-sha256'] === sha256(secret), 'the hash on the agent');

    const written = await eventually(() => configOf(TEAM_A, 'builder'), 'the config of builder');
    expect(written.config.tools).toEqual({ everything: { endpoint: GATEWAY_ENDPOINT, protocol: 'mcp', headers: { Authorization: 'Bearer ${TOOLDECK_GATEWAY_CREDENTIAL}' } } });
    expect(written.text).not.toContain(secret);
    expect(written.text).not.toContain(Buffer.from(credential).toString('base64'));

    // The agent's container reads it from the Secret; the other container of the pod does not get it.
    const containers = await eventually(async () => {
      const dep = await admin.rest.request<{ spec: { template: { spec: { containers: Array<{ name: string; env?: Array<Record<string, unknown>> }> } } } }>('GET', `/apis/apps/v1/namespaces/${TEAM_A}/deployments/builder`);
      const list = dep.spec.template.spec.containers;
      return list[0]?.env?.some((e) => e.name === 'TOOLDECK_GATEWAY_CREDENTIAL') ? list : undefined;
    }, 'the credential in the agent container');
    expect(containers[0]!.env).toEqual([{ name: 'MODEL', value: 'm' }, { name: 'TOOLDECK_GATEWAY_CREDENTIAL', valueFrom: { secretKeyRef: { name: 'tooldeck-gateway-builder', key: 'credential' } } }]);
    expect(containers[1]!.env).toBeUndefined();

    // The operator said what it did, as an Event on the agent, and never the credential.
    const events = await eventually(async () => {
      const list = await admin.rest.request<{ items: Array<{ regarding: { name: string }; note: string }> }>('GET', `/apis/events.k8s.io/v1/namespaces/${TEAM_A}/events`);
      const issued = list.items.filter((e) => e.regarding.name === 'builder' && e.note.includes('issued gateway credential Secret'));
      return issued.length ? list.items : undefined;
    }, 'an Event saying the credential was issued');
    expect(JSON.stringify(events)).not.toContain(secret);
  });

  it('an agent that did not opt in gets nothing: no Secret, no hash, no gateway endpoint', async () => {
    await credentialOf(TEAM_A, 'builder');
    await credentialOf(TEAM_B, 'helper');
    expect(await secretOf(TEAM_A, 'plain')).toBeUndefined();
    expect((await agentOf(TEAM_A, 'plain')).metadata.annotations?.['tooldeck.dev/gateway-credential-sha256']).toBeUndefined();
    expect(JSON.stringify((await configOf(TEAM_A, 'plain')) ?? {})).not.toContain('tooldeck-gateway');
  });

  it("a namespace's label opts in all its agents", async () => {
    const credential = await credentialOf(TEAM_B, 'helper');
    expect(credential.startsWith('helper.team-b:')).toBe(true);
    const written = await eventually(() => configOf(TEAM_B, 'helper'), 'the config of helper');
    expect(written.config.tools).toEqual({ other: { endpoint: GATEWAY_ENDPOINT, protocol: 'mcp', headers: { Authorization: 'Bearer ${TOOLDECK_GATEWAY_CREDENTIAL}' } } });
  });

  it("the gateway, its data folder empty, lets each operator-issued credential in, lists exactly that agent's tools from its namespace's LanguageTools and calls one; one agent's credential never opens another", async () => {
    const builder = await credentialOf(TEAM_A, 'builder');
    const helper = await credentialOf(TEAM_B, 'helper');
    // Nothing was configured: the sources are the LanguageTools, held in memory, not written to servers.json.
    expect(core.mcp.configs().map((config) => config.name).sort()).toEqual(['everything_team-a', 'extra_team-a', 'other_team-b']);
    expect(core.mcp.configs().every((config) => core.mcp.isProvided(config.name))).toBe(true);
    // The one server inventory says where each comes from.
    expect(core.servers.get('everything_team-a')?.origin).toEqual({ kind: 'provided', by: 'LanguageTool team-a/everything' });
    expect(core.servers.snapshots().find((server) => server.config.name === 'other_team-b')?.origin).toEqual({ kind: 'provided', by: 'LanguageTool team-b/other' });
    expect(existsSync(join(dataDir, 'servers.json')) ? JSON.parse(readFileSync(join(dataDir, 'servers.json'), 'utf8')).servers : []).toEqual([]);
    const everything = core.catalog.list({ source: 'mcp:everything_team-a' }).map((entry) => entry.name).sort();
    const other = core.catalog.list({ source: 'mcp:other_team-b' }).map((entry) => entry.name).sort();
    expect(everything.length).toBeGreaterThan(3);
    await vi.waitFor(async () => expect(await gatewayStatus(builder)).toBe(200), { timeout: 30_000 });
    expect(await toolsListedFor(builder)).toEqual(everything.map((name) => name.replace(/^mcp:/, '')));
    expect(await toolsListedFor(helper)).toEqual(other.map((name) => name.replace(/^mcp:/, '')));
    // A call goes through the gateway, the API server's service proxy and the tool's Service to the tool.
    const result = (await clients.at(-2)!.callTool({ name: 'everything_team-a.echo', arguments: { message: 'through the gateway' } })) as { content: Array<{ text?: string }> };
    expect(result.content[0]!.text).toContain('through the gateway');
    const secretOfHelper = helper.slice(helper.indexOf(':') + 1);
    const secretOfBuilder = builder.slice(builder.indexOf(':') + 1);
    expect(await gatewayStatus(`builder.team-a:${secretOfHelper}`)).toBe(403);
    expect(await gatewayStatus(`helper.team-b:${secretOfBuilder}`)).toBe(403);
    // The same agent name in another namespace is another agent.
    expect(await gatewayStatus(`builder.team-b:${secretOfBuilder}`)).toBe(403);
  });

  it("the namespace's Orloj ToolPermissions grant more (scoped) and take away (a deny), for that namespace's agents only", async () => {
    const builder = await credentialOf(TEAM_A, 'builder');
    const helper = await credentialOf(TEAM_B, 'helper');
    const permission = (ns: string, name: string, spec: Record<string, unknown>) =>
      admin.rest.request('POST', `/apis/orloj.dev/v1/namespaces/${ns}/toolpermissions`, { body: { apiVersion: 'orloj.dev/v1', kind: 'ToolPermission', metadata: { name, namespace: ns }, spec } });
    // `extra--get-sum` names the LanguageTool extra of team-a, which builder does not reference.
    await permission(TEAM_A, 'builder-may-add', { tool_ref: 'extra--get-sum', apply_mode: 'scoped', target_agents: ['builder'], operation_rules: [{ operation_class: '*', verdict: 'allow' }] });
    await permission(TEAM_A, 'no-echo-here', { tool_ref: 'everything--echo', operation_rules: [{ operation_class: '*', verdict: 'deny' }] });
    // A ToolPermission of team-a cannot give its agents team-b's tools, nor everything.
    await permission(TEAM_A, 'reach-across', { tool_ref: 'mcp:other_team-b.echo', apply_mode: 'scoped', target_agents: ['builder'], operation_rules: [{ operation_class: '*', verdict: 'allow' }] });
    await permission(TEAM_A, 'reach-all', { tool_ref: '*', apply_mode: 'scoped', target_agents: ['builder'], operation_rules: [{ operation_class: '*', verdict: 'allow' }] });
    // Names builder, but in team-b: it grants nothing to team-a's builder.
    await permission(TEAM_B, 'builder-elsewhere', { tool_ref: 'other--*', apply_mode: 'scoped', target_agents: ['builder'], operation_rules: [{ operation_class: '*', verdict: 'allow' }] });
    const everything = core.catalog.list({ source: 'mcp:everything_team-a' }).map((entry) => entry.name.replace(/^mcp:/, ''));
    const expected = [...everything.filter((name) => name !== 'everything_team-a.echo'), 'extra_team-a.get-sum'].sort();
    await vi.waitFor(async () => expect(await toolsListedFor(builder)).toEqual(expected), { timeout: 30_000 });
    // team-a's global deny is not team-b's.
    expect(await toolsListedFor(helper)).toContain('other_team-b.echo');
    for (const name of ['builder-may-add', 'no-echo-here', 'reach-across', 'reach-all']) await admin.rest.request('DELETE', `/apis/orloj.dev/v1/namespaces/${TEAM_A}/toolpermissions/${name}`);
    await admin.rest.request('DELETE', `/apis/orloj.dev/v1/namespaces/${TEAM_B}/toolpermissions/builder-elsewhere`);
    await vi.waitFor(async () => expect(await toolsListedFor(builder)).toEqual([...everything].sort()), { timeout: 30_000 });
  });

  it.skipIf(!existsSync(cliPath))('the built CLI (npx electron-vite build): gateway --kubeconfig --agent-namespace lets the operator-issued credential in and serves the LanguageTools; a namespace it may not read is one sentence and exit 1', async () => {
    const helper = await credentialOf(TEAM_B, 'helper');
    const child = spawn(process.execPath, [cliPath, '--data-dir', mkdtempSync(join(tmp, 'cli-data-')), 'gateway', '--port', '0', '--kubeconfig', gatewayKubeconfig, '--namespace', SYSTEM, '--agent-namespace', TEAM_A, '--agent-namespace', TEAM_B], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).on('line', (line) => {
          const found = /^Gateway listening on (\S+)/.exec(line);
          if (found) resolve(found[1]!);
        });
        child.once('exit', (code) => reject(new Error(`gateway exited with ${code}: ${stderr}`)));
      });
      expect(stderr).toContain(`Agents: LanguageAgents opted in to the gateway in namespaces ${TEAM_A}, ${TEAM_B}`);
      await vi.waitFor(async () => expect(await gatewayStatus(helper, url)).toBe(200), { timeout: 30_000 });
      expect(await gatewayStatus(`${helper}x`, url)).toBe(403);
      // Its data folder is empty too: helper's tools come from team-b's LanguageTool.
      const client = new Client({ name: 'language-agent-under-test', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
      clients.push(client);
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${helper}` } } }));
      await vi.waitFor(async () => expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('other_team-b.echo'), { timeout: 30_000 });
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }

    let out = '';
    const forbidden = await runCli(['gateway', '--kubeconfig', gatewayKubeconfig, '--namespace', SYSTEM, '--agent-namespace', 'kube-system'], { stdout: (t) => void (out += t), stderr: (t) => void (out += t) });
    expect(forbidden).toBe(1);
    expect(out).toMatch(/Cannot read LanguageAgents in namespace kube-system on https:\/\/127\.0\.0\.1:\d+ \(forbidden\); the gateway needs get, list and watch on languageagents there\./);
    out = '';
    expect(await runCli(['gateway', '--agent-namespace', TEAM_A], { stdout: (t) => void (out += t), stderr: (t) => void (out += t) })).toBe(2);
    expect(out).toContain('--agent-namespace goes with --kubeconfig or --in-cluster');
  });

  it('opting out revokes at once: the hash and the Secret go, and the gateway refuses the credential', async () => {
    const builder = await credentialOf(TEAM_A, 'builder');
    await vi.waitFor(async () => expect(await gatewayStatus(builder)).toBe(200), { timeout: 30_000 });
    // A session builder opened before it opts out.
    const open = new Client({ name: 'language-agent-under-test', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
    clients.push(open);
    await open.connect(new StreamableHTTPClientTransport(new URL(gatewayUrl), { requestInit: { headers: { Authorization: `Bearer ${builder}` } } }));
    expect((await open.listTools()).tools.length).toBeGreaterThan(0);
    await admin.rest.request('PATCH', `${agentsPath(TEAM_A)}/builder`, { contentType: CONTENT_TYPE.mergePatch, body: { metadata: { labels: { 'tooldeck.dev/gateway': null } } } });
    await eventually(async () => (await secretOf(TEAM_A, 'builder')) === undefined, 'the Secret of builder removed');
    expect((await agentOf(TEAM_A, 'builder')).metadata.annotations?.['tooldeck.dev/gateway-credential-sha256']).toBeUndefined();
    await vi.waitFor(async () => expect(await gatewayStatus(builder)).toBe(403), { timeout: 30_000 });
    // The session it opened before is refused too: the next request on it fails.
    await expect(open.listTools()).rejects.toThrow();
    // The agent's container no longer names the Secret; what else it had stays.
    await eventually(async () => {
      const dep = await admin.rest.request<{ spec: { template: { spec: { containers: Array<{ env?: unknown[] }> } } } }>('GET', `/apis/apps/v1/namespaces/${TEAM_A}/deployments/builder`);
      return JSON.stringify(dep.spec.template.spec.containers[0]!.env) === JSON.stringify([{ name: 'MODEL', value: 'm' }]);
    }, 'the credential variable removed from the agent container');
    // Its config no longer names the gateway (the tool has no endpoint of its own on this bed: no entry at all).
    await eventually(async () => !JSON.stringify((await configOf(TEAM_A, 'builder')) ?? {}).includes('tooldeck-gateway'), 'the gateway endpoint removed from builder’s config');
  });

  it("a LanguageTool the gateway may take (team-c: the test writes its status as the operator would) is a source while its endpoint is the tool's own Service; a hostile endpoint is refused with a sentence; removing the endpoint or the tool takes it away; a tool outside the agent namespaces never is one", async () => {
    const statusOf = (ns: string, name: string, endpoint: string | null) =>
      admin.rest.request('PATCH', `${toolsPath(ns)}/${name}/status`, { contentType: CONTENT_TYPE.mergePatch, body: { status: { endpoint } } });
    const service = (ns: string, name: string) =>
      admin.rest.request('POST', `/api/v1/namespaces/${ns}/services`, {
        body: {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name, namespace: ns },
          spec: {
            selector: { 'langop.io/tool': name },
            ports: [
              { name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' },
              { name: 'alt', port: 9090, targetPort: 'http', protocol: 'TCP' },
            ],
          },
        },
      });
    const endpoints = (ns: string, name: string) =>
      admin.rest.request('POST', `/api/v1/namespaces/${ns}/endpoints`, {
        body: {
          apiVersion: 'v1',
          kind: 'Endpoints',
          metadata: { name, namespace: ns },
          // The service proxy only goes to addresses that are a Pod's.
          subsets: [{ addresses: [{ ip: mcp.address, targetRef: { kind: 'Pod', namespace: ns, name: 'probe-pod' } }], ports: [{ name: 'http', port: mcp.port, protocol: 'TCP' }, { name: 'alt', port: mcp.port, protocol: 'TCP' }] }],
        },
      });
    const urlOf = (name: string) => {
      const config = core.mcp.configs().find((item) => item.name === name);
      return config?.transport === 'http' ? config.url : undefined;
    };
    const isSource = (name: string) => core.catalog.resolve(`mcp:${name}.echo`) !== undefined;
    for (const ns of [TEAM_C, OUTSIDE]) {
      await service(ns, 'probe');
      await createRunningPod(admin.rest, ns, 'probe-pod', mcp.address, { 'langop.io/tool': 'probe' });
      await endpoints(ns, 'probe');
      await createTool(ns, 'probe');
    }
    await statusOf(OUTSIDE, 'probe', `http://probe.${OUTSIDE}.svc.cluster.local:8080`);
    await statusOf(TEAM_C, 'probe', `http://probe.${TEAM_C}.svc.cluster.local:8080`);
    await vi.waitFor(() => expect(isSource('probe_team-c')).toBe(true), { timeout: 30_000 });
    // team-d's was published first and is as valid, but team-d is not an agent namespace.
    expect(core.mcp.configs().map((config) => config.name)).not.toContain('probe_team-d');
    expect(core.catalog.sources().map((source) => source.name).filter((name) => name.endsWith('_team-d'))).toEqual([]);
    expect(urlOf('probe_team-c')).toMatch(/\/api\/v1\/namespaces\/team-c\/services\/probe:8080\/proxy\/mcp$/);

    // The endpoint moves (another port of the Service): the source follows, and its tools are there again.
    await statusOf(TEAM_C, 'probe', `http://probe.${TEAM_C}.svc.cluster.local:9090`);
    await vi.waitFor(() => {
      expect(urlOf('probe_team-c')).toMatch(/\/services\/probe:9090\/proxy\/mcp$/);
      expect(core.mcp.connection('probe_team-c')?.state.status).toBe('ready');
      expect(isSource('probe_team-c')).toBe(true);
    }, { timeout: 30_000 });

    // Hand-written hostile statuses: the API server's own Service, a control character.
    await statusOf(TEAM_C, 'probe', 'http://kubernetes.default.svc.cluster.local:443');
    await vi.waitFor(() => expect(isSource('probe_team-c')).toBe(false), { timeout: 30_000 });
    await vi.waitFor(() => expect(warnings).toContain("LanguageTool team-c/probe is not a tool source of the gateway: its status.endpoint names kubernetes.default.svc.cluster.local, not the tool's own Service probe.team-c.svc.cluster.local."));
    await statusOf(TEAM_C, 'probe', 'http://probe.team-c.svc.cluster.local:8080/mcp\u001b[2J');
    await vi.waitFor(() => expect(warnings).toContain('LanguageTool team-c/probe is not a tool source of the gateway: its status.endpoint holds control characters or spaces.'));
    expect(core.mcp.configs().map((config) => config.name)).not.toContain('probe_team-c');

    await statusOf(TEAM_C, 'probe', `http://probe.${TEAM_C}.svc.cluster.local:8080`);
    await vi.waitFor(() => expect(isSource('probe_team-c')).toBe(true), { timeout: 30_000 });
    await statusOf(TEAM_C, 'probe', null);
    await vi.waitFor(() => expect(core.mcp.configs().map((config) => config.name)).not.toContain('probe_team-c'), { timeout: 30_000 });
    expect(isSource('probe_team-c')).toBe(false);
    await statusOf(TEAM_C, 'probe', `http://probe.${TEAM_C}.svc.cluster.local:8080`);
    await vi.waitFor(() => expect(isSource('probe_team-c')).toBe(true), { timeout: 30_000 });
    await admin.rest.request('DELETE', `${toolsPath(TEAM_C)}/probe`);
    await vi.waitFor(() => expect(core.mcp.configs().map((config) => config.name)).not.toContain('probe_team-c'), { timeout: 30_000 });
    expect(isSource('probe_team-c')).toBe(false);
  });

  it('a LanguageTool named like a server saved in the gateway’s data folder is refused; the saved server stays as it is', async () => {
    await core.mcp.save({ config: everythingStdio('clash_team-c') as never });
    await createTool(TEAM_C, 'clash');
    await admin.rest.request('PATCH', `${toolsPath(TEAM_C)}/clash/status`, { contentType: CONTENT_TYPE.mergePatch, body: { status: { endpoint: `http://clash.${TEAM_C}.svc.cluster.local:8080` } } });
    await vi.waitFor(() => expect(warnings).toContain('Provided server "clash_team-c" is refused: a saved server is named "clash_team-c"; it is left as it is.'), { timeout: 30_000 });
    expect(core.mcp.isProvided('clash_team-c')).toBe(false);
    expect(core.mcp.configs().find((config) => config.name === 'clash_team-c')?.transport).toBe('stdio');
    await core.mcp.remove('clash_team-c');
  });

  it("deleting a LanguageTool takes its tools from the agents that reference it", async () => {
    const helper = await credentialOf(TEAM_B, 'helper');
    await vi.waitFor(async () => expect(await toolsListedFor(helper)).toContain('other_team-b.echo'), { timeout: 30_000 });
    await admin.rest.request('DELETE', `${toolsPath(TEAM_B)}/other`);
    // The operator finalizes it (its Deployment and Service go), then it is gone and so is the source.
    await vi.waitFor(async () => expect(await toolsListedFor(helper)).toEqual([]), { timeout: 60_000 });
    expect(core.catalog.sources().map((source) => source.name)).not.toContain('other_team-b');
  });

  it('deleting the agent revokes too: the operator removes the Secret (no garbage collector here) and the gateway refuses', async () => {
    const helper = await credentialOf(TEAM_B, 'helper');
    await vi.waitFor(async () => expect(await gatewayStatus(helper)).toBe(200), { timeout: 30_000 });
    await admin.rest.request('DELETE', `${agentsPath(TEAM_B)}/helper`);
    await vi.waitFor(async () => expect(await gatewayStatus(helper)).toBe(403), { timeout: 30_000 });
    await eventually(async () => (await secretOf(TEAM_B, 'helper')) === undefined, 'the Secret of helper removed');
  });
});

/** A minimal stand-in for Orloj's ToolPermission CRD (the fields are Orloj's; the schema keeps whatever is written). */
const orlojToolPermissionCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'toolpermissions.orloj.dev' },
  spec: {
    group: 'orloj.dev',
    scope: 'Namespaced',
    names: { kind: 'ToolPermission', listKind: 'ToolPermissionList', plural: 'toolpermissions', singular: 'toolpermission' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
