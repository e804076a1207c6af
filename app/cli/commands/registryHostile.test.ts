import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING_VERSION, hostileEntries, startConnectionRecorder, startHostileRegistryFake, type ConnectionRecorder, type HostileRegistryFake } from '../../../main/mcpRegistry/testing/hostileRegistryFake';

/**
 * `tooldeck registry install` — the built CLI, as a user runs it — against a hostile registry
 * (hostileRegistryFake: one entry per attack, every request recorded) on 127.0.0.1: nothing a
 * registry supplies runs unseen, and nothing it supplies changes which code is loaded unless the
 * user names it.
 */
const root = resolve(import.meta.dirname, '../../..');
const cli = join(root, 'out/main/cli.js');
const work = mkdtempSync(join(tmpdir(), 'tooldeck-registry-hostile-'));
const dataDir = join(work, 'data');
const marker = join(work, 'pwned');
const requireFile = join(work, 'pwn.cjs');
let registry: HostileRegistryFake;
let bundleHost: ConnectionRecorder;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI with no terminal on stdin: a question is answered no, as in CI or a pipe. */
function tooldeck(...args: string[]): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cli, '--data-dir', dataDir, ...args], { cwd: root, env: { ...process.env, TOOLDECK_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

const install = (name: string, ...flags: string[]) => tooldeck('registry', 'install', `com.example.hostile/${name}`, '--registry', registry.url, ...flags);
const savedNames = async () => (JSON.parse((await tooldeck('mcp', 'list', '--json')).stdout) as Array<{ name: string; origin: { kind: string } }>).filter((server) => server.origin.kind === 'saved').map((server) => server.name);

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first (npm test does)`);
  // What a registry's NODE_OPTIONS would load into the server's process: it leaves a marker.
  writeFileSync(requireFile, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'loaded by ' + process.argv.join(' '));\n`);
  bundleHost = await startConnectionRecorder();
  registry = await startHostileRegistryFake(hostileEntries({ requireFile, bundleHost: bundleHost.host }));
}, 60_000);

afterAll(async () => {
  await tooldeck('mcp', 'remove', 'node-options').catch(() => undefined);
  await registry?.close();
  await bundleHost?.close();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('tooldeck registry install against a hostile registry', () => {
  it("refuses a registry's NODE_OPTIONS with one sentence and exit 2, with or without --yes: its file is never loaded", async () => {
    const shown = await tooldeck('registry', 'show', 'com.example.hostile/node-options', '--registry', registry.url);
    expect(shown.stdout).toContain(`    env NODE_OPTIONS (changes which code runs: refused unless --allow-env, default --require=${requireFile})\n`);
    const sentence = `The registry sets NODE_OPTIONS="--require=${requireFile}", a variable that changes which code runs (Node.js loads the modules it names (--require, --import) into every process), so nothing is installed unless you name it with --allow-env NODE_OPTIONS.\n`;
    for (const flags of [['--yes'], []]) {
      const refused = await install('node-options', ...flags);
      expect(refused, JSON.stringify(refused)).toMatchObject({ code: 2, stderr: sentence });
    }
    expect(existsSync(marker)).toBe(false);
    expect(await savedNames()).not.toContain('node-options');
  }, 60_000);

  it('with --allow-env NODE_OPTIONS shows its value in the line, flags it, and still waits for confirmation', async () => {
    const asked = await install('node-options', '--allow-env', 'NODE_OPTIONS');
    expect(asked.stderr).toContain(`node-options (com.example.hostile/node-options 1.0.0) runs\n  NODE_OPTIONS=--require=${requireFile} PLAIN_SETTING=plain-value-7d1c npx -y @modelcontextprotocol/server-everything@${EVERYTHING_VERSION} stdio\n`);
    expect(asked.stderr).toContain('flagged: NODE_OPTIONS changes which code runs, and you allowed it (--allow-env)');
    expect(asked).toMatchObject({ code: 2, stderr: expect.stringContaining('Not installed: confirm on a terminal') });
    expect(existsSync(marker)).toBe(false);
    expect(await savedNames()).not.toContain('node-options');

    // The rig is live: named by the user and confirmed, the registry's NODE_OPTIONS is loaded.
    const named = await install('node-options', '--allow-env', 'NODE_OPTIONS', '--yes');
    expect(named.stdout, JSON.stringify(named)).toContain('Installed node-options');
    expect(readFileSync(marker, 'utf8')).toMatch(/^loaded by /);
    expect((await tooldeck('mcp', 'remove', 'node-options')).code).toBe(0);
    rmSync(marker);
  }, 120_000);

  it('shows a plain registry setting as it is in the confirmation and in mcp list', async () => {
    const installed = await install('plain', '--yes');
    expect(installed.stderr, JSON.stringify(installed)).toContain(`runs\n  PLAIN_SETTING=plain-value-7d1c npx -y @modelcontextprotocol/server-everything@${EVERYTHING_VERSION} stdio\n`);
    expect(installed.stdout).toContain('Installed plain');
    expect(installed.code).toBe(0);
    const listed = await tooldeck('mcp', 'list');
    expect(listed.stdout).toMatch(/^plain\s+saved\s+stdio\s+PLAIN_SETTING=plain-value-7d1c npx -y @modelcontextprotocol\/server-everything@/m);
    expect(readFileSync(join(dataDir, 'servers.json'), 'utf8')).toContain('"PLAIN_SETTING": "plain-value-7d1c"');
  }, 120_000);

  it('refuses option-like runtime arguments for npm and PyPI, and --privileged for an OCI image', async () => {
    expect(await install('npm-option', '--yes')).toMatchObject({
      code: 2,
      stderr: 'The registry gives npx the argument "--registry=http://127.0.0.1:9/" before the pinned npm package @modelcontextprotocol/server-everything, where it could change what runs, so it is not installed (runtime arguments are refused for npm, PyPI and NuGet packages).\n',
    });
    expect(await install('pypi-option', '--yes')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^The registry gives uvx the argument "--index-url" before the pinned PyPI package mcp-server-time, .*\.\n$/) });
    expect(await install('oci-privileged', '--yes')).toMatchObject({
      code: 2,
      stderr: 'The registry gives docker run --privileged -v /:/host before the image ghcr.io/example/server:1.0.0, and --privileged gives the container a way out to this machine, so it is not installed.\n',
    });
    expect(await savedNames()).not.toEqual(expect.arrayContaining(['npm-option', 'pypi-option', 'oci-privileged']));
  }, 60_000);

  it('never requests a bundle over http, on a name that resolves to 127.0.0.1, or on the metadata address', async () => {
    expect(await install('http-bundle', '--yes')).toMatchObject({ code: 2, stderr: expect.stringContaining(`is downloaded from http://${bundleHost.host}/b.mcpb, which is not https, so it is not installed.`) });
    // The preview fetches nothing; a bundle is downloaded only once the install is confirmed.
    const previewed = await install('loopback-bundle');
    expect(previewed.stderr).toContain(`will\n  download https://localhost:${bundleHost.host.split(':')[1]}/b.mcpb (sha256 ${'a'.repeat(64)})`);
    expect(previewed.code).toBe(2);
    const loopback = await install('loopback-bundle', '--yes');
    expect(loopback).toMatchObject({ code: 2, stderr: expect.stringMatching(/is not downloaded: localhost resolves to (127\.0\.0\.1|::1), which is not a public address\.\n$/) });
    expect(await install('metadata-bundle', '--yes')).toMatchObject({ code: 2, stderr: expect.stringMatching(/\nThe bundle https:\/\/169\.254\.169\.254\/latest\/b\.mcpb is not downloaded: 169\.254\.169\.254 is not a public address\.\n$/) });
    expect(bundleHost.connections).toEqual([]);
    expect(existsSync(join(dataDir, 'mcpb'))).toBe(false);
  }, 60_000);

  it('stops the install when the registry answers otherwise than it did for the preview, even with --yes', async () => {
    const before = registry.requests.length;
    const changed = await install('changing', '--yes');
    expect(changed.stderr).toContain('runs\n  PLAIN_SETTING=answer-0 npx');
    expect(changed).toMatchObject({ code: 1, stderr: expect.stringContaining("changing is not installed: the registry's answer changed between the preview and the install, so what would run is no longer what you confirmed.\n") });
    expect(registry.requests.slice(before).filter((request) => request.endsWith('/versions/latest'))).toHaveLength(2);
    expect(await savedNames()).not.toContain('changing');
  }, 60_000);
});
