/**
 * Environment variables that change which code a process loads, or where its toolchain fetches
 * code from: a value in one of them turns a pinned, reviewed command into another program
 * (`NODE_OPTIONS=--require=/tmp/x.cjs`, `npm_config_registry=https://elsewhere`,
 * `UV_INDEX_URL=…`, `LD_PRELOAD=…`, `DOCKER_HOST=…`, `PATH=…`).
 *
 * This is the one list. A registry that supplies one of them stops the install
 * (main/mcpRegistry/installPlan.ts) unless the user names it with `--allow-env NAME`; a workspace
 * folder's launch line shows such variables in plain text and flags them
 * (main/resources/mcpServerConfig.ts). Names are compared case-insensitively: npm reads
 * `npm_config_*` in any case, and Windows does not tell `Path` from `PATH`.
 */
export const REFUSED_ENVIRONMENT: ReadonlyArray<{ name: string; prefix?: true; why: string }> = [
  { name: 'NODE_OPTIONS', why: 'Node.js loads the modules it names (--require, --import) into every process' },
  { name: 'NODE_PATH', why: 'Node.js resolves modules from it' },
  { name: 'LD_', prefix: true, why: 'the dynamic loader preloads libraries and searches paths from LD_PRELOAD, LD_LIBRARY_PATH, …' },
  { name: 'DYLD_', prefix: true, why: "macOS's dynamic loader inserts libraries from DYLD_INSERT_LIBRARIES, …" },
  { name: 'NPM_CONFIG_', prefix: true, why: 'npm and npx read their registry, scripts and hooks from npm_config_*' },
  { name: 'UV_', prefix: true, why: 'uv and uvx read their package index from UV_INDEX_URL, …' },
  { name: 'PIP_', prefix: true, why: 'pip reads its package index from PIP_INDEX_URL, …' },
  { name: 'PYTHON', prefix: true, why: 'Python runs PYTHONSTARTUP and imports from PYTHONPATH, …' },
  { name: 'DOCKER_', prefix: true, why: 'the docker client talks to the daemon and reads the config DOCKER_HOST and DOCKER_CONFIG name' },
  { name: 'PATH', why: 'it decides which program a command name runs' },
  { name: 'HOME', why: 'toolchains read their configuration (.npmrc, pip.conf, .docker) from it' },
  { name: 'GIT_', prefix: true, why: 'git runs the programs GIT_SSH_COMMAND, GIT_EXEC_PATH and GIT_CONFIG_* name' },
  { name: 'JAVA_TOOL_OPTIONS', why: 'the JVM loads the agents it names' },
  { name: '_JAVA_OPTIONS', why: 'the JVM loads the agents it names' },
  { name: 'DOTNET_', prefix: true, why: '.NET loads startup hooks and additional dependencies DOTNET_* name' },
];

/** The entry of REFUSED_ENVIRONMENT that `name` falls under, or undefined. */
export function refusedVariable(name: string): { name: string; why: string } | undefined {
  const upper = name.toUpperCase();
  return REFUSED_ENVIRONMENT.find((entry) => (entry.prefix ? upper.startsWith(entry.name) : upper === entry.name));
}

export function isRefusedVariable(name: string): boolean {
  return refusedVariable(name) !== undefined;
}
