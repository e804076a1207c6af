import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { isAppError } from '../../../shared/errors';
import { CliContext, CliExit } from '../CliContext';
import { registerResources } from './resources';

let tmp: string;

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
  const program = new Command('tooldeck').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const ctx = new CliContext(io, () => join(tmp, 'data'));
  registerResources(program, ctx);
  let code = 0;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CliExit) {
      code = error.exitCode;
      stderr += `${error.message}\n`;
    } else if (error instanceof CommanderError) code = error.exitCode === 0 ? 0 : 2;
    // As runCli reports them.
    else if (isAppError(error)) {
      code = error.code === 'InvalidInput' ? 2 : 1;
      stderr += `${error.code}: ${error.message}\n`;
    } else throw error;
  } finally {
    await ctx.close();
  }
  return { code, stdout, stderr };
}

function file(name: string, text: string): string {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}

const server = `# the reference server
apiVersion: orloj.dev/v1
kind: McpServer
metadata:
  name: everything
spec:
  transport: stdio
  command: \${node}
  args: ["\${module:@modelcontextprotocol/server-everything/dist/index.js}", stdio]
`;
const tool = (timeout: string) => `apiVersion: orloj.dev/v1
kind: Tool
metadata:
  name: slow
spec:
  type: mcp
  mcp_server_ref: everything
  mcp_tool_name: trigger-long-running-operation
  runtime:
    timeout: ${timeout}
`;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'tooldeck-resources-cli-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('tooldeck validate', () => {
  it('accepts a valid multi-document file and names what it holds', async () => {
    const path = file('ok.yaml', `${server}---\n${tool('1m')}`);
    expect(await run(['validate', '-f', path])).toEqual({ code: 0, stdout: `${path}: 2 valid: McpServer everything, Tool slow\n`, stderr: '' });
  });

  it('exits 1 with every error as file:line:column: path: message', async () => {
    const path = file('bad.yaml', `${server}---\n${tool('abc').replace('type: mcp', 'type: ftp')}`);
    const result = await run(['validate', '-f', path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        `${path}:16:9: spec.type: "ftp" is not one of http, external, grpc, webhook-callback, queue, mcp`,
        `${path}:20:14: spec.runtime.timeout: "abc" is not a duration: expected numbers with units (ns, us, ms, s, m, h), e.g. "30s", "1m30s", "250ms"`,
        `${path}: 2 errors.`,
        '',
      ].join('\n'),
    );
  });

  it('--defaults prints the objects as they will be stored, every default applied, as YAML', async () => {
    const result = await run(['validate', '-f', file('ok.yaml', `${server}---\n${tool('1m')}`), '--defaults']);
    expect(result.code).toBe(0);
    const objects = parseAllDocuments(result.stdout) as Array<{ toJS(): unknown }>;
    expect(objects.map((doc) => doc.toJS())).toEqual([
      {
        apiVersion: 'orloj.dev/v1',
        kind: 'McpServer',
        metadata: { name: 'everything', namespace: 'default' },
        spec: {
          transport: 'stdio',
          command: '${node}',
          args: ['${module:@modelcontextprotocol/server-everything/dist/index.js}', 'stdio'],
          idle_timeout: '0',
          reconnect: { max_attempts: 3, backoff: '2s' },
        },
      },
      {
        apiVersion: 'orloj.dev/v1',
        kind: 'Tool',
        metadata: { name: 'slow', namespace: 'default' },
        spec: {
          type: 'mcp',
          mcp_server_ref: 'everything',
          mcp_tool_name: 'trigger-long-running-operation',
          operation_classes: ['read'],
          risk_level: 'low',
          runtime: { timeout: '1m', isolation_mode: 'none', retry: { max_attempts: 1, backoff: '0s', max_backoff: '30s', jitter: 'none' } },
        },
      },
    ]);
  });

  it('exits 1 on YAML syntax errors, unknown kinds and duplicate names', async () => {
    const syntax = await run(['validate', '-f', file('syntax.yaml', 'kind: Tool\nmetadata: {name: [x}\n')]);
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toMatch(/syntax\.yaml:2:\d+: /);
    const unknown = await run(['validate', '-f', file('unknown.yaml', 'apiVersion: orloj.dev/v1\nkind: Agent\nmetadata: {name: a}\n')]);
    expect(unknown.stderr).toContain('unknown.yaml:2:7: kind: unknown kind "Agent"');
    const twice = await run(['validate', '-f', file('twice.yaml', `${tool('1m')}---\n${tool('2m')}`)]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('twice.yaml:4:9: metadata.name: Tool slow is also defined in this file (document 1, line 15)');
  });

  it('refuses a 5 MB file with a clear message instead of parsing it', async () => {
    const result = await run(['validate', '-f', file('big.yaml', `${tool('1m')}  description: "${'x'.repeat(5 * 1024 * 1024)}"\n`)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/big\.yaml is larger than the 1 MiB a resource file may have \(it is 5 MiB\); split it into smaller files\./);
  });
});

describe('tooldeck apply --target local', () => {
  it('creates, leaves unchanged and configures objects in the workspace, keeping the rest of their file', async () => {
    const workspace = join(tmp, 'ws');
    const missing = await run(['apply', '-f', file('team.yaml', `${server}---\n${tool('1m')}`), '--workspace', join(tmp, 'missing')]);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining('does not exist or is not a folder') });
    mkdirSync(workspace);
    // The McpServer it applied is reconciled once, and its outcome reported (--yes: the user confirms its command).
    expect((await run(['apply', '-f', join(tmp, 'team.yaml'), '--workspace', workspace, '--yes'])).stdout).toMatch(
      /^McpServer\/everything created \(team\.yaml\)\nTool\/slow created \(team\.yaml\)\nMcpServer\/everything \(team\.yaml\): Ready — \d+ tools discovered, \d+ Tools generated\n$/,
    );
    expect(readFileSync(join(workspace, 'team.yaml'), 'utf8')).toBe(`${server}---\n${tool('1m')}`);
    expect((await run(['apply', '-f', join(tmp, 'team.yaml'), '--workspace', workspace])).stdout).toMatch(/^McpServer\/everything unchanged \(team\.yaml\)\nTool\/slow unchanged \(team\.yaml\)\n/);

    const dry = await run(['apply', '-f', file('slow.yaml', tool('5m')), '--workspace', workspace, '--dry-run']);
    expect(dry.stdout).toBe('Tool/slow configured (team.yaml) (dry run)\n');
    expect(readFileSync(join(workspace, 'team.yaml'), 'utf8')).toBe(`${server}---\n${tool('1m')}`);

    expect((await run(['apply', '-f', join(tmp, 'slow.yaml'), '--workspace', workspace])).stdout).toMatch(/^Tool\/slow configured \(team\.yaml\)\n/);
    expect(readFileSync(join(workspace, 'team.yaml'), 'utf8')).toBe(`${server}---\n${tool('5m')}`);
    // Besides the resource file, only the lockfile: the first reconcile pinned the server's definitions.
    expect(readdirSync(workspace)).toEqual(['team.yaml', 'tooldeck.lock']);
    expect(readFileSync(join(workspace, 'tooldeck.lock'), 'utf8')).toContain('mcp:everything');
  });

  it('applies nothing when the file has errors (exit 1)', async () => {
    const workspace = join(tmp, 'ws');
    mkdirSync(workspace);
    const result = await run(['apply', '-f', file('bad.yaml', `${server}---\n${tool('abc')}`), '--workspace', workspace]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bad.yaml: 1 error; nothing was applied.');
    expect(readdirSync(workspace)).toEqual([]);
  });
});

describe('tooldeck apply --target cluster', () => {
  it('exits 3 when the cluster cannot be reached', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const kubeconfig = file(
      'kubeconfig',
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
    );
    const result = await run(['apply', '-f', file('agent.yaml', 'apiVersion: langop.io/v1alpha1\nkind: LanguageAgent\nmetadata: {name: a}\nspec: {}\n'), '--target', 'cluster', '--kubeconfig', kubeconfig]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/Cannot reach the cluster at http:\/\/127\.0\.0\.1:\d+/);
  });
});
