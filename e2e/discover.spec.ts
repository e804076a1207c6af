import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistrySources } from '../main/mcpRegistry/RegistrySources';
import { EVERYTHING_VERSION, hostileEntries, startConnectionRecorder, startHostileRegistryFake, type ConnectionRecorder, type HostileRegistryFake } from '../main/mcpRegistry/testing/hostileRegistryFake';
import { everythingEntry, timeEntry } from '../main/mcpRegistry/testing/registrySeed';
import { OFFICIAL_REGISTRY_URL } from '../shared/mcpRegistry';
import { startRegistry } from './mcp-registry/registry.mjs';
import { expect, openSection, test } from './support/fixtures';
import { startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * The Discover section against the real console: the official registry server (built from its Go
 * module, on a private PostgreSQL) for a server found and installed after its exact command line
 * is confirmed; a hostile registry written in test code (hostileRegistryFake) for what a registry
 * may not do unseen; and a registry that cannot be reached, whose dead end offers a server.json
 * at hand. server-everything runs through npx from this repository's node_modules (pinned to the
 * version installed here), so nothing is fetched from npm.
 */
const work = mkdtempSync(join(tmpdir(), 'tooldeck-e2e-discover-'));
const marker = join(work, 'pwned');
const requireFile = join(work, 'pwn.cjs');
/** Nothing listens here: the registry that cannot be reached. */
const UNREACHABLE = 'http://127.0.0.1:9';

let console_: TooldeckServer;
let registry: Awaited<ReturnType<typeof startRegistry>>;
let hostile: HostileRegistryFake;
let bundleHost: ConnectionRecorder;

test.beforeAll(async () => {
  writeFileSync(requireFile, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'loaded');\n`);
  bundleHost = await startConnectionRecorder();
  hostile = await startHostileRegistryFake(hostileEntries({ requireFile, bundleHost: bundleHost.host }));
  registry = await startRegistry({ seed: [everythingEntry(EVERYTHING_VERSION)] });
  const dataDir = join(work, 'data');
  const sources = new RegistrySources(dataDir);
  await sources.add(registry.url);
  await sources.add(hostile.url);
  await sources.add(UNREACHABLE);
  await sources.setEnabled(OFFICIAL_REGISTRY_URL, false);
  console_ = await startTooldeckServer({ dataDir });
});

test.afterAll(async () => {
  await console_?.stop();
  await registry?.stop();
  await hostile?.close();
  await bundleHost?.close();
});

async function chooseRegistry(page: import('@playwright/test').Page, url: string) {
  await page.getByRole('combobox', { name: 'Registry', exact: true }).click();
  await page.getByRole('option', { name: url, exact: true }).click();
}

test('a server found in the registry is installed after its exact command line is confirmed, and its tools are listed', async ({ page }) => {
  // npx starts server-everything from this repository's node_modules: seconds, more on a loaded machine.
  test.setTimeout(180_000);
  await page.goto(console_.url);
  await openSection(page, 'Discover');
  await page.getByRole('button', { name: 'io.github.modelcontextprotocol/everything' }).click();

  const detail = page.getByLabel('Server io.github.modelcontextprotocol/everything');
  // The example workspace has a server named everything: this one is saved under another name.
  await detail.getByLabel('Saved as').fill('reference');
  await detail.getByRole('button', { name: 'Review and install' }).click();
  await expect(page.getByLabel('Command line')).toHaveText(`npx -y @modelcontextprotocol/server-everything@${EVERYTHING_VERSION} stdio`);

  await page.getByRole('button', { name: 'Install', exact: true }).click();
  await expect(page.getByText('Installed reference')).toBeVisible({ timeout: 60_000 });

  await openSection(page, 'Tools');
  await page.getByRole('textbox', { name: 'Search tools' }).fill('echo');
  await expect(page.getByRole('option', { name: 'mcp:reference.echo' })).toBeVisible({ timeout: 30_000 });
});

test("a hostile registry's NODE_OPTIONS is refused with one sentence; named by the user it is shown and flagged, and still waits for the Install click", async ({ page }) => {
  await page.goto(console_.url);
  await openSection(page, 'Discover');
  await chooseRegistry(page, hostile.url);
  await page.getByRole('button', { name: 'com.example.hostile/node-options' }).click();
  const detail = page.getByLabel('Server com.example.hostile/node-options');
  await detail.getByRole('button', { name: 'Review and install' }).click();
  await expect(detail.getByText(`The registry sets NODE_OPTIONS="--require=${requireFile}", a variable that changes which code runs`)).toBeVisible();
  await expect(page.getByLabel('Command line')).toHaveCount(0);

  await detail.getByLabel('Let the registry set').fill('NODE_OPTIONS');
  await detail.getByRole('button', { name: 'Review and install' }).click();
  await expect(page.getByLabel('Command line')).toHaveText(`NODE_OPTIONS=--require=${requireFile} PLAIN_SETTING=plain-value-7d1c npx -y @modelcontextprotocol/server-everything@${EVERYTHING_VERSION} stdio`);
  await expect(page.getByText('NODE_OPTIONS changes which code runs')).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByLabel('Command line')).toHaveCount(0);
  expect(existsSync(marker)).toBe(false);
});

test('runtime arguments before the pinned package, a privileged container, a bundle on loopback and a changed answer are refused, saying why', async ({ page }) => {
  await page.goto(console_.url);
  await openSection(page, 'Discover');
  await chooseRegistry(page, hostile.url);
  const review = async (name: string) => {
    await page.getByRole('button', { name: `com.example.hostile/${name}` }).click();
    const detail = page.getByLabel(`Server com.example.hostile/${name}`);
    await detail.getByRole('button', { name: 'Review and install' }).click();
    return detail;
  };
  await expect((await review('npm-option')).getByText('The registry gives npx the argument "--registry=http://127.0.0.1:9/" before the pinned npm package')).toBeVisible();
  await expect((await review('pypi-option')).getByText(/The registry gives uvx the argument "--index-url" before the pinned PyPI package mcp-server-time/)).toBeVisible();
  await expect((await review('oci-privileged')).getByText(/--privileged gives the container a way out to this machine/)).toBeVisible();

  // A bundle is downloaded only once confirmed, and a name that resolves to loopback is never connected to.
  await review('loopback-bundle');
  await expect(page.getByLabel('Download', { exact: true })).toContainText(`download https://localhost:${bundleHost.host.split(':')[1]}/b.mcpb`);
  await page.getByRole('button', { name: 'Download and verify' }).click();
  await expect(page.getByText(/localhost resolves to (127\.0\.0\.1|::1), which is not a public address/)).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
  expect(bundleHost.connections).toEqual([]);

  const changing = await review('changing');
  // The hostile registry answers differently on every read (the detail's reads count too).
  await expect(page.getByLabel('Command line')).toContainText(/PLAIN_SETTING=answer-\d+ npx/);
  await page.getByRole('button', { name: 'Install', exact: true }).click();
  await expect(changing.getByText("the registry's answer changed between the preview and the install")).toBeVisible();
});

test('a registry that cannot be reached names the ways on, and a server.json at hand installs through the same confirmation', async ({ page }) => {
  await page.goto(console_.url);
  await openSection(page, 'Discover');
  await chooseRegistry(page, UNREACHABLE);
  await expect(page.getByText(/add another registry or turn this one off \(Registries in Discover/)).toBeVisible();
  // Both ways on are on the page.
  await expect(page.getByLabel('Add a registry')).toBeVisible();
  await expect(page.getByRole('switch', { name: UNREACHABLE })).toBeVisible();

  const fromFile = page.getByLabel('Install from a server.json');
  await fromFile.locator('input[type="file"]').setInputFiles({ name: 'server.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(timeEntry)) });
  await fromFile.getByRole('button', { name: 'Review and install' }).click();
  await expect(page.getByLabel('Command line')).toHaveText('uvx mcp-server-time==2026.10.19 --local-timezone UTC');
  await page.getByRole('button', { name: 'Cancel' }).click();
});
