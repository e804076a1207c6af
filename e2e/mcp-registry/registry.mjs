// The official MCP registry server (github.com/modelcontextprotocol/registry/cmd/registry), built
// once from its Go module pinned in go.mod beside this file and cached under ~/.cache/tooldeck, run
// on a private PostgreSQL cluster (its production database; Debian's postgresql 15 binaries) in a
// temporary folder on a free port, seeded with server.json entries through MCP_REGISTRY_SEED_FROM.
//
//   node e2e/mcp-registry/registry.mjs --build-only     fill the binary cache (CI warm-up), print its path
//
// Test code: `const registry = await startRegistry({ seed: [serverJson, …] }); … await registry.stop();`
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureGoBinary, goBinaryPath, toolCacheDir } from '../support/goModuleBinary.mjs';
import { freePort, startPostgres } from '../support/postgres.mjs';

export { freePort, startPostgres };

const registryDir = path.dirname(fileURLToPath(import.meta.url));
const MODULE = 'github.com/modelcontextprotocol/registry';

function registryVersion() {
  const m = fs.readFileSync(path.join(registryDir, 'go.mod'), 'utf8').match(/^\s*(?:require\s+)?github\.com\/modelcontextprotocol\/registry\s+(v\S+)/m);
  if (!m) throw new Error('e2e/mcp-registry/go.mod does not require github.com/modelcontextprotocol/registry');
  return m[1];
}

function buildArgs(out) {
  return ['build', '-trimpath', '-ldflags', `-s -w -X main.Version=${registryVersion()}`, '-o', out, `${MODULE}/cmd/registry`];
}

const buildSpec = { name: 'mcp-registry', moduleDir: registryDir, binary: 'registry', buildArgs, get cacheDir() { return toolCacheDir('mcp-registry', 'MCP_REGISTRY_CACHE_DIR'); } };

/** Path of the cached binary for go.mod + go.sum + tools.go (it may not exist yet). */
export function registryBinaryPath() {
  return goBinaryPath(buildSpec);
}

/** Builds the registry server unless cached (about 30 s with a warm module cache); resolves to its path. Concurrent callers share one build. */
export function ensureRegistry(options = {}) {
  return ensureGoBinary(buildSpec, { ...options, what: registryVersion() });
}

function ended(child) {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit').then(() => undefined);
}

/**
 * The official registry server on a free port of 127.0.0.1, on its own private PostgreSQL, seeded
 * with `seed` (server.json documents). Resolves once `/v0.1/health` answers, which is after the
 * seed import (the server imports before it listens). `stop()` ends both and removes their files.
 */
export async function startRegistry({ seed = [], log } = {}) {
  const bin = await ensureRegistry(log ? { log } : {});
  const postgres = await startPostgres();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tooldeck-registry-'));
  const seedFile = path.join(dir, 'seed.json');
  fs.writeFileSync(seedFile, JSON.stringify(seed));
  const port = await freePort();
  const child = spawn(process.platform === 'linux' ? 'setpriv' : bin, [...(process.platform === 'linux' ? ['--pdeathsig', 'KILL', '--', bin] : [])], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      MCP_REGISTRY_SERVER_ADDRESS: `127.0.0.1:${port}`,
      MCP_REGISTRY_DATABASE_URL: postgres.url,
      MCP_REGISTRY_DATABASE_MIN_CONNECTIONS: '1',
      MCP_REGISTRY_DATABASE_MAX_CONNECTIONS: '4',
      MCP_REGISTRY_SEED_FROM: seedFile,
      MCP_REGISTRY_ENABLE_REGISTRY_VALIDATION: 'false',
      // Publishing is not exercised; the server wants a key to start its auth handlers.
      MCP_REGISTRY_JWT_PRIVATE_KEY: createHash('sha256').update('tooldeck-test-registry').digest('hex'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await ended(child);
    }
    await postgres.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  const exited = ended(child);
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the registry server exited (${child.exitCode ?? child.signalCode}):\n${output.slice(-4000)}`);
      const healthy = await fetch(`${url}/v0.1/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (healthy) break;
      await Promise.race([exited, new Promise((r) => setTimeout(r, 100))]);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop, output: () => output };
}

// `node e2e/mcp-registry/registry.mjs --build-only`: fill the cache (CI warm-up), print the binary's path.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]) && process.argv.includes('--build-only')) {
  ensureRegistry().then(
    (bin) => process.stdout.write(`${bin}\n`),
    (error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
