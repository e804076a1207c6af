import { CollectionName } from '../collections';
import { EVAL_SUITE_FILE } from '../evals';
import { CLAW_POD_FILE } from './clawPod';
import { WORKSPACE_FILE } from './workspace';

/**
 * What Resources → New file offers: a starting file per kind, each valid as it stands (the
 * workspace reads it with no error: templates.test.ts) and commented where a field needs a choice.
 */
export interface ResourceTemplate {
  /** The kind it starts (`ClawPod` is the Clawdapus pod file, `Collection` a collection of saved calls). */
  kind: 'McpServer' | 'Tool' | 'ToolPermission' | 'LanguageTool' | 'LanguageAgent' | 'ClawPod' | 'EvalSuite' | 'Collection';
  /** The menu's label. */
  label: string;
  /** One line under the label: what the file is for. */
  description: string;
  /** The file name offered (relative to the workspace folder; a Collection's to its collections folder). */
  path: string;
  /** What the chosen name must look like for the workspace to read the file as this kind, or undefined. */
  checkPath(path: string): string | undefined;
  text: string;
}

const yamlFile = (path: string) => (WORKSPACE_FILE.test(path) && !path.endsWith('.json') ? undefined : 'Must end in .yaml or .yml');

export const RESOURCE_TEMPLATES: readonly ResourceTemplate[] = [
  {
    kind: 'McpServer',
    label: 'MCP server',
    description: 'An Orloj McpServer the local target starts (stdio) or reaches (Streamable HTTP); its tools become registry entries.',
    path: 'servers/my-server.yaml',
    checkPath: yamlFile,
    text: `# An MCP server the local target connects; its tools become registry entries named mcp:my-server.<tool>.
# A stdio command starts only once you confirm its exact line for this folder.
apiVersion: orloj.dev/v1
kind: McpServer
metadata:
  name: my-server
spec:
  transport: stdio
  command: npx
  args: ["-y", "@modelcontextprotocol/server-everything", "stdio"]
  # Or over Streamable HTTP:
  # transport: http
  # endpoint: http://127.0.0.1:3001/mcp
  # Only these tools become registry entries (leave out tool_filter for all of them).
  tool_filter:
    include: [echo, get-sum]
  reconnect:
    max_attempts: 3
    backoff: 2s
`,
  },
  {
    kind: 'Tool',
    label: 'Tool',
    description: 'An Orloj Tool: the runtime policy, risk and operation classes of one tool of an McpServer.',
    path: 'tools/my-tool.yaml',
    checkPath: yamlFile,
    text: `# Policy for one tool of an McpServer: replaces the server's default_tool_runtime for that tool.
apiVersion: orloj.dev/v1
kind: Tool
metadata:
  name: my-server-echo
spec:
  type: mcp
  mcp_server_ref: my-server
  mcp_tool_name: echo
  description: Repeats the message it is given.
  risk_level: low
  # read, write or delete: what ToolPermissions' operation_rules match on.
  operation_classes: [read]
  runtime:
    timeout: 30s
    retry:
      max_attempts: 2
      backoff: 500ms
`,
  },
  {
    kind: 'ToolPermission',
    label: 'Tool permission',
    description: 'An Orloj ToolPermission: allow, approval_required or deny per operation class, for everyone or scoped to agents.',
    path: 'permissions/my-permission.yaml',
    checkPath: yamlFile,
    text: `# Verdicts for the tools tool_ref names; the strictest matching verdict wins (deny > approval_required > allow).
apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: my-server-changes-need-approval
spec:
  tool_ref: my-server--*
  # scoped: only these agents' calls are governed (and granted the tools); leave out for everyone.
  apply_mode: scoped
  target_agents: [assistant]
  operation_rules:
    - operation_class: read
      verdict: allow
    - operation_class: write
      verdict: approval_required
    - operation_class: delete
      verdict: deny
`,
  },
  {
    kind: 'LanguageTool',
    label: 'Language Operator tool',
    description: 'A LanguageTool for a Kubernetes cluster (tooldeck apply --target cluster); stored and checked locally.',
    path: 'cluster/my-tool.yaml',
    checkPath: yamlFile,
    text: `# For a Kubernetes cluster with the Language Operator: an MCP server run as a Deployment.
apiVersion: langop.io/v1alpha1
kind: LanguageTool
metadata:
  name: my-tool
spec:
  image: node:22-slim
  port: 3001
  deployment:
    command: [npx]
    args: [-y, "@modelcontextprotocol/server-everything", streamableHttp]
    env:
      - name: PORT
        value: "3001"
`,
  },
  {
    kind: 'LanguageAgent',
    label: 'Language Operator agent',
    description: 'A LanguageAgent for a Kubernetes cluster: its instructions and the LanguageTools it may use.',
    path: 'cluster/my-agent.yaml',
    checkPath: yamlFile,
    text: `# For a Kubernetes cluster with the Language Operator: an agent and the LanguageTools it may use.
apiVersion: langop.io/v1alpha1
kind: LanguageAgent
metadata:
  name: my-agent
spec:
  instructions: Answer questions; use the tools when they help.
  tools:
    - name: my-tool
`,
  },
  {
    kind: 'ClawPod',
    label: 'Clawdapus pod file',
    description: 'Agents and the tools each may call (x-claw); nothing is allowed unless granted.',
    path: 'my-agents.claw-pod.yml',
    checkPath: (path) => (CLAW_POD_FILE.test(path.split('/').pop() ?? '') ? undefined : 'A pod file is named claw-pod.yml or <pod>.claw-pod.yml'),
    text: `# Agents and the tools each may call (a Clawdapus pod file): nothing is allowed unless granted.
x-claw:
  pod: my-agents
  # Every agent that declares no tools of its own gets these; one that does keeps them with \`...\`.
  tools-defaults:
    - service: my-server
      allow: [echo]

services:
  assistant:
    image: example/assistant:latest
    x-claw:
      cllama: passthrough
      tools:
        - ...
        - service: my-server
          allow: [get-sum]
`,
  },
  {
    kind: 'EvalSuite',
    label: 'Eval suite',
    description: 'Prompts and the tool a model should pick for each, run from Evals or with tooldeck eval.',
    path: 'evals/my-suite.yml',
    checkPath: (path) => (EVAL_SUITE_FILE.test(path) ? undefined : 'An eval suite lives in the evals/ folder: evals/<name>.yml'),
    text: `# Which tool should a model pick for each prompt? Run it from Evals, or:
#   tooldeck eval evals/my-suite.yml --model <provider>/<model>
name: my-suite
# The tool set: an agent's grants (its pod file, ToolPermissions or LanguageAgent)…
agent: assistant
# …or hand-picked registry entries instead:
# tools: [mcp:my-server.echo, mcp:my-server.get-sum]
iterations: 1
cases:
  - name: adds two numbers
    prompt: Please add 2 and 40.
    expect:
      toolCalls:
        # "number", "string" and "any" check the type only
        - tool: get-sum
          arguments: { a: number, b: number }
      finalAnswerContains: "42"
  - name: small talk calls no tool
    prompt: Hello!
    expect:
      toolCalls: []
`,
  },
  {
    kind: 'Collection',
    label: 'Collection',
    description: 'Saved calls with assertions, run from Collections or with tooldeck run (kept in the collections folder).',
    path: 'my-collection',
    checkPath: (name) => {
      const parsed = CollectionName.safeParse(name);
      return parsed.success ? undefined : `A collection's name: ${parsed.error.issues[0]!.message}`;
    },
    text: `# Saved calls with assertions. Run it from Collections, or: tooldeck run my-collection
name: my-collection
description: Smoke tests for my-server.
variables:
  greeting: hello
requests:
  - name: echo a variable
    target: mcp:my-server
    tool: echo
    arguments:
      message: "{{greeting}}"
    assertions:
      - status: ok
      - path: text
        contains: hello
`,
  },
];
