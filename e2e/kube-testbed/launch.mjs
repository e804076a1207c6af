#!/usr/bin/env node
// Usage: node e2e/kube-testbed/launch.mjs --kubeconfig-out FILE [--port N] [--data-dir DIR]
//                                          [--log-file FILE] [-- extra kube-apiserver flags]
//        node e2e/kube-testbed/launch.mjs --build-only      (just populate the binary cache)
//
// Builds the Go binary if the cache (~/.cache/tooldeck/kube-testbed/<sha256>/kube-testbed) is
// missing, then runs it: its stdout ("version {...}", "ready") is forwarded line by line,
// SIGTERM/SIGINT are forwarded, and the launcher exits with the child's exit code.
// Test code should rather `import { startTestbed } from './testbed.mjs'`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { constants } from 'node:os';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ensureBinary } from './testbed.mjs';

export { startTestbed, ensureBinary, binaryPath, sourceHash, cacheRoot } from './testbed.mjs';

async function main(argv) {
  const buildOnly = argv.includes('--build-only');
  const args = argv.filter((a) => a !== '--build-only');

  let child = null;
  let received = null;
  const abort = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, () => {
      received ??= sig;
      if (child) child.kill(sig);
      else abort.abort();
    });
  }

  let bin;
  try {
    bin = await ensureBinary({ signal: abort.signal });
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    process.exit(received ? 128 + constants.signals[received] : 1);
  }
  if (buildOnly) {
    process.stdout.write(`${bin}\n`);
    return;
  }
  if (received) process.exit(128 + constants.signals[received]);

  child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  readline.createInterface({ input: child.stdout }).on('line', (line) => process.stdout.write(`${line}\n`));
  child.on('error', (e) => {
    process.stderr.write(`kube-testbed: ${e.message}\n`);
    process.exit(1);
  });
  child.on('close', (code, sig) => {
    process.exit(code ?? 128 + (constants.signals[sig] ?? 0));
  });
}

function isMain() {
  try {
    return fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (process.argv[1] && isMain()) {
  main(process.argv.slice(2));
}
