import { describe, expect, it } from 'vitest';
import { applyDefaults } from '../applyDefaults';
import { parseResourceText } from '../parseResourceText';

function problems(text: string, fileName?: string): string[] {
  return parseResourceText(text, { fileName }).flatMap((doc) => doc.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.column} ${d.path ?? ''}: ${d.message}`));
}

const orloj = (kind: string, name: string, spec: Record<string, unknown>) => ({ apiVersion: 'orloj.dev/v1', kind, metadata: { name }, spec });

describe('Orloj McpServer', () => {
  it('defaults: reconnect 3 attempts 2s apart, idle_timeout 0, auth profile bearer', () => {
    expect(applyDefaults(orloj('McpServer', 'remote', { transport: 'HTTP', endpoint: 'https://mcp.example.com/mcp', auth: { secretRef: 'token' } }))).toEqual({
      apiVersion: 'orloj.dev/v1',
      kind: 'McpServer',
      metadata: { name: 'remote', namespace: 'default' },
      spec: {
        transport: 'http',
        endpoint: 'https://mcp.example.com/mcp',
        auth: { secretRef: 'token', profile: 'bearer' },
        idle_timeout: '0',
        reconnect: { max_attempts: 3, backoff: '2s' },
      },
    });
    expect(applyDefaults(orloj('McpServer', 'local', { transport: 'stdio', command: 'node', reconnect: { max_attempts: 5, backoff: '500ms' }, tool_filter: { include: [' echo ', 'echo', 'get-sum'] } })).spec).toMatchObject({
      reconnect: { max_attempts: 5, backoff: '500ms' },
      tool_filter: { include: ['echo', 'get-sum'] },
    });
  });

  it('transport is required and is stdio or http; stdio needs command (unless image), http needs endpoint', () => {
    const server = (spec: string) => `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata:\n  name: s\nspec:\n${spec}`;
    expect(problems(server('  args: [x]\n'))).toEqual(['5:1 spec.transport: is required: stdio or http']);
    expect(problems(server('  transport: ws\n'))).toEqual(['6:14 spec.transport: "ws" is not one of stdio, http']);
    expect(problems(server('  transport: stdio\n'))).toEqual(['5:1 spec.command: is required when transport is stdio (unless image is set)']);
    expect(problems(server('  transport: http\n'))).toEqual(['5:1 spec.endpoint: is required when transport is http']);
    expect(problems(server('  transport: http\n  endpoint: ftp://x\n'))).toEqual(['7:13 spec.endpoint: "ftp://x" is not an http:// or https:// URL']);
    expect(problems(server('  transport: http\n  endpoint: http://127.0.0.1/mcp\n  image: example/image\n'))).toEqual(['8:10 spec.image: is only valid with transport stdio']);
    expect(problems(server('  transport: stdio\n  command: x\n  image_pull_secret: creds\n'))).toEqual(['8:22 spec.image_pull_secret: requires image to be set']);
  });

  it('env: value and secretRef are mutually exclusive; mountPath needs image and an absolute path', () => {
    const text = `apiVersion: orloj.dev/v1
kind: McpServer
metadata: {name: s}
spec:
  transport: stdio
  command: node
  env:
    - {name: A, value: x, secretRef: y}
    - {name: B, secretRef: y, mountPath: relative/path}
    - {value: orphan}
`;
    expect(problems(text)).toEqual([
      '8:7 spec.env[0]: value and secretRef are mutually exclusive',
      '9:42 spec.env[1].mountPath: requires image to be set',
      '9:42 spec.env[1].mountPath: "relative/path" must be an absolute path',
      '10:7 spec.env[2].name: is required',
    ]);
  });

  it('the name becomes a saved server name; placeholders must be known; durations are checked', () => {
    expect(problems('apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: "my server"}\nspec: {transport: stdio, command: "${python}", reconnect: {backoff: 2}, idle_timeout: 5x}\n')).toEqual([
      '3:18 metadata.name: "my server": Use letters, digits, "-" and "_" (starting with a letter or digit)',
      '4:35 spec.command: unknown placeholder ${python}: use ${node} or ${module:<package path>}',
      '4:69 spec.reconnect.backoff: 2 is not a duration: write it as a string with a unit, e.g. "30s"',
      '4:87 spec.idle_timeout: "5x" is not a duration: expected numbers with units (ns, us, ms, s, m, h), e.g. "30s", "1m30s", "250ms"',
    ]);
  });

  it('default_tool_runtime is checked with the Tool runtime rules and kept as written', () => {
    expect(applyDefaults(orloj('McpServer', 's', { transport: 'stdio', command: 'x', default_tool_runtime: { timeout: '10s', isolation_mode: 'NONE' } })).spec).toMatchObject({
      default_tool_runtime: { timeout: '10s', isolation_mode: 'none' },
    });
    expect(() => applyDefaults(orloj('McpServer', 's', { transport: 'stdio', command: 'x', default_tool_runtime: { timeout: 'later' } }))).toThrow(/spec\.default_tool_runtime\.timeout: "later" is not a duration/);
  });
});

describe('Orloj ToolPermission', () => {
  it('tool_ref defaults to metadata.name, action to invoke, match_mode to all, apply_mode to global', () => {
    expect(applyDefaults(orloj('ToolPermission', 'everything--echo', {}))).toMatchObject({
      spec: { tool_ref: 'everything--echo', action: 'invoke', match_mode: 'all', apply_mode: 'global' },
    });
  });

  it('lists are trimmed and deduplicated; operation rules are lowercased with class * and verdict allow by default', () => {
    expect(
      applyDefaults(
        orloj('ToolPermission', 'p', {
          required_permissions: [' tools:invoke ', 'tools:invoke'],
          apply_mode: 'Scoped',
          target_agents: ['a', ' a ', 'b'],
          operation_rules: [{ operation_class: ' WRITE ', verdict: 'Approval_Required' }, { verdict: 'deny' }, { operation_class: 'read' }],
        }),
      ).spec,
    ).toEqual({
      tool_ref: 'p',
      action: 'invoke',
      required_permissions: ['tools:invoke'],
      match_mode: 'all',
      apply_mode: 'scoped',
      target_agents: ['a', 'b'],
      operation_rules: [
        { operation_class: 'write', verdict: 'approval_required' },
        { operation_class: '*', verdict: 'deny' },
        { operation_class: 'read', verdict: 'allow' },
      ],
    });
  });

  it('rejects invalid classes, verdicts and modes at their path; scoped needs target_agents', () => {
    const text = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata: {name: p}
spec:
  match_mode: some
  apply_mode: scoped
  operation_rules:
    - operation_class: execute
      verdict: maybe
`;
    expect(problems(text)).toEqual([
      '4:1 spec.target_agents: must name at least one agent when apply_mode is scoped',
      '5:15 spec.match_mode: "some" is not one of all, any',
      '8:24 spec.operation_rules[0].operation_class: "execute" is not one of read, write, delete, admin, *',
      '9:16 spec.operation_rules[0].verdict: "maybe" is not one of allow, deny, approval_required',
    ]);
  });
});

describe('LanguageTool and LanguageAgent (the CRD schemas)', () => {
  it('apply the CRD defaults: type mcp, port 8080, deploymentMode service; tools enabled', () => {
    expect(applyDefaults({ apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name: 'mem' }, spec: { image: 'mem:1' } })).toEqual({
      apiVersion: 'langop.io/v1alpha1',
      kind: 'LanguageTool',
      metadata: { name: 'mem' },
      spec: { image: 'mem:1', type: 'mcp', port: 8080, deploymentMode: 'service' },
    });
    expect(applyDefaults({ apiVersion: 'langop.io/v1alpha1', kind: 'LanguageAgent', metadata: { name: 'a' }, spec: { tools: [{ name: 'mem' }] } }).spec).toEqual({ tools: [{ name: 'mem', enabled: true }] });
  });

  it('report CRD violations by path: names are DNS labels, image is required, port in range, modes from the enum', () => {
    const text = `apiVersion: langop.io/v1alpha1
kind: LanguageTool
metadata: {name: Mem_Tool}
spec:
  port: 70000
  deploymentMode: daemon
`;
    expect(problems(text)).toEqual([
      '3:18 metadata.name: "Mem_Tool": Use lowercase letters, digits and "-" (a DNS label)',
      '4:1 spec.image: Invalid input: expected string, received undefined',
      '5:9 spec.port: Too big: expected number to be <=65535',
      '6:19 spec.deploymentMode: must be one of "service", "sidecar"',
    ]);
  });

  it('warn about fields the CRD does not declare (the apiserver would prune them)', () => {
    const doc = parseResourceText('apiVersion: langop.io/v1alpha1\nkind: LanguageAgent\nmetadata: {name: a}\nspec:\n  tool: [x]\n')[0]!;
    expect(doc.valid).toBe(true);
    expect(doc.diagnostics.map((d) => `${d.path}: ${d.message}`)).toEqual(['spec.tool: is not a field here and is ignored (known: image, instructions, tools, models)']);
  });
});

describe('Clawdapus descriptor v2', () => {
  const descriptor = JSON.stringify(
    {
      version: 2,
      tools: [
        { name: 'get_market_context', description: 'Context', inputSchema: { type: 'object' }, http: { method: 'get', path: '/api/v1/ctx' }, annotations: { readOnly: true } },
        { name: 'get_market_context', description: 'Again', inputSchema: { type: 'array' } },
      ],
      auth: { type: 'bearer', env: 'TRADING_API_TOKEN' },
    },
    null,
    2,
  );

  it('files named <service>.claw-describe.json are descriptors, validated by the registry parser with paths and lines', () => {
    const [doc] = parseResourceText(descriptor, { fileName: 'services/trading-api.claw-describe.json' });
    expect(doc).toMatchObject({ kind: 'ClawDescriptor', name: 'trading-api', valid: false });
    expect(problems(descriptor, 'trading-api.claw-describe.json')).toEqual(['22:17 tools[1].inputSchema.type: must be one of "object"']);
    const fixed = descriptor.replace('"array"', '"object"');
    expect(problems(fixed, 'trading-api.claw-describe.json')).toEqual([
      '19:15 tools[1].name: duplicates the tool name "get_market_context"',
      '18:5 tools[1].http: is required',
    ]);
  });

  it('a valid descriptor is stored as the registry reads it (methods uppercased)', () => {
    const valid = { version: 2, tools: [{ name: 'ctx', description: 'Context', inputSchema: { type: 'object' }, http: { method: 'get', path: '/ctx' } }] };
    expect(applyDefaults(valid, { fileName: 'trading-api.claw-describe.json' })).toMatchObject({ tools: [{ http: { method: 'GET', path: '/ctx' } }] });
  });
});

describe('documents that are not resources', () => {
  it('an unknown kind names the kinds there are; a known kind under another apiVersion says which one it is', () => {
    expect(problems('apiVersion: orloj.dev/v1\nkind: Agent\nmetadata: {name: a}\n')).toEqual([
      '2:7 kind: unknown kind "Agent"; known kinds: McpServer, Tool, ToolPermission (orloj.dev/v1); LanguageTool, LanguageAgent (langop.io/v1alpha1)',
    ]);
    expect(problems('apiVersion: orloj.dev/v2\nkind: Tool\nmetadata: {name: a}\n')).toEqual(['1:13 apiVersion: Tool is served as orloj.dev/v1, not "orloj.dev/v2"']);
    expect(parseResourceText('apiVersion: orloj.dev/v1\nkind: Agent\n')[0]!.diagnostics[0]!.code).toBe('unknownKind');
  });

  it('a document without apiVersion, kind or name, or one that is not a mapping, says what is missing', () => {
    expect(problems('metadata: {name: a}\n')).toEqual(['1:1 apiVersion: is required', '1:1 kind: is required']);
    expect(problems('apiVersion: orloj.dev/v1\nkind: Tool\nmetadata: {}\n')).toEqual(['3:1 metadata.name: is required']);
    expect(problems('- just\n- a list\n')).toEqual(['1:1 : a resource must be a mapping with apiVersion, kind, metadata and spec']);
  });
});
