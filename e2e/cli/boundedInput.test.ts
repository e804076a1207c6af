import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliPath } from '../support/tooldeckServer';

// The child reports its own peak resident memory (VmHWM of /proc/self/status) on fd 3 as it exits:
// once a process has exited its /proc entry is gone, so the parent cannot read it afterwards.
const REPORT_PEAK = `data:text/javascript,${encodeURIComponent(
  "import{readFileSync,writeSync}from'node:fs';process.on('exit',()=>{const m=/VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status','utf8'));writeSync(3,String(Number(m[1])*1024));});",
)}`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  peakRss: number;
}

/**
 * Runs the built CLI with `args`. `stdin`: bytes written to its standard input (a socket, as Node
 * makes it) until it stops reading; `shellPipe`: a shell command whose output is piped into it
 * (a real pipe, as `yes | tooldeck …` makes it).
 */
function runCli(args: string[], dataDir: string, input: { stdin?: Buffer; shellPipe?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const argv = [process.execPath, '--import', REPORT_PEAK, cliPath, '--data-dir', dataDir, ...args];
    const quoted = argv.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = input.shellPipe
      ? spawn('sh', ['-c', `${input.shellPipe} | exec ${quoted}`], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] })
      : spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peak = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdio[3]!.on('data', (chunk) => (peak += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr, peakRss: Number(peak) }));
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input.stdin);
  });
}

const MIB = 1024 * 1024;
let dataDir: string;
let small: string;
let baseline: Run;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-bounded-cli-'));
  small = join(dataDir, 'small.yaml');
  writeFileSync(small, 'apiVersion: orloj.dev/v1\nkind: Tool\nmetadata:\n  name: small\nspec:\n  type: http\n  endpoint: http://127.0.0.1:9/x\n');
  baseline = await runCli(['validate', '-f', small], dataDir);
  expect(baseline.code, baseline.stderr).toBe(0);
}, 60_000);

describe.runIf(process.platform === 'linux')('every input is read with a byte counter (the built CLI)', () => {
  it('validate -f /dev/zero and /dev/urandom stop at the 1 MiB limit, in bounded memory', { timeout: 60_000 }, async () => {
    for (const device of ['/dev/zero', '/dev/urandom']) {
      const result = await runCli(['validate', '-f', device], dataDir);
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(`${device} is larger than the 1 MiB a resource file may have; split it into smaller files.`);
      console.log(`validate -f ${device}: peak RSS ${(result.peakRss / MIB).toFixed(1)} MiB (baseline ${(baseline.peakRss / MIB).toFixed(1)} MiB)`);
      // Before the limit was counted, /dev/zero grew the process to 620 MB and /dev/urandom to 1.2 GB.
      expect(result.peakRss - baseline.peakRss).toBeLessThan(32 * MIB);
    }
  });

  it('a 20 MB pipe (-f /dev/stdin) is cut off at the limit instead of being parsed whole', { timeout: 60_000 }, async () => {
    const result = await runCli(['validate', '-f', '/dev/stdin'], dataDir, { shellPipe: `yes -- '- key: value' | head -c ${20 * MIB}` });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('/dev/stdin is larger than the 1 MiB a resource file may have; split it into smaller files.');
    console.log(`validate -f /dev/stdin (20 MB pipe): peak RSS ${(result.peakRss / MIB).toFixed(1)} MiB (baseline ${(baseline.peakRss / MIB).toFixed(1)} MiB)`);
    // Parsed whole, this pipe took 850 MB.
    expect(result.peakRss - baseline.peakRss).toBeLessThan(32 * MIB);
  });

  it('a small file on standard input is read whole and validated (-f - and -f /dev/stdin, from a socket too)', { timeout: 30_000 }, async () => {
    for (const name of ['-', '/dev/stdin']) {
      const result = await runCli(['validate', '-f', name], dataDir, { stdin: readFileSync(small) });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('1 valid: Tool small');
    }
  });

  it('collections and environment files have a limit too: run /dev/zero and run --env /dev/zero', { timeout: 60_000 }, async () => {
    const collection = await runCli(['run', '/dev/zero'], dataDir);
    expect(collection.code).toBe(2);
    expect(collection.stderr.trim()).toBe('/dev/zero is larger than the 4 MiB a collection file may have; split it into several collections.');
    expect(collection.peakRss - baseline.peakRss).toBeLessThan(32 * MIB);
    const environment = await runCli(['run', small, '--env', '/dev/zero'], dataDir);
    expect(environment.code).toBe(2);
    expect(environment.stderr.trim()).toBe('/dev/zero is larger than the 1 MiB an environment file may have.');
    expect(environment.peakRss - baseline.peakRss).toBeLessThan(32 * MIB);
  });

  it('PEM files and kubeconfigs are bounded as well', { timeout: 60_000 }, async () => {
    const pem = await runCli(['grpc', 'list', '127.0.0.1:9', '--ca', '/dev/zero'], dataDir);
    expect(pem.code).toBe(2);
    expect(pem.stderr.trim()).toBe('--ca: /dev/zero is larger than the 1 MiB a PEM file may have.');
    expect(pem.peakRss - baseline.peakRss).toBeLessThan(32 * MIB);
    // The Kubernetes client is loaded by kube commands only: their own baseline is a missing kubeconfig.
    const kubeBaseline = await runCli(['kube', 'inventory', '--kubeconfig', join(dataDir, 'missing')], dataDir);
    expect(kubeBaseline.code).toBe(2);
    const kubeconfig = await runCli(['kube', 'inventory', '--kubeconfig', '/dev/zero'], dataDir);
    expect(kubeconfig.code).toBe(2);
    expect(kubeconfig.stderr.trim()).toBe('/dev/zero is larger than the 4 MiB a kubeconfig may have.');
    expect(kubeconfig.peakRss - kubeBaseline.peakRss).toBeLessThan(32 * MIB);
  });
});
