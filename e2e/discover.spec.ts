import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistrySources } from '../main/mcpRegistry/RegistrySources';
import { BUNDLED_SERVER_SOURCE, bundleEntry, everythingEntry } from '../main/mcpRegistry/testing/registrySeed';
import { writeZip } from '../main/mcpRegistry/testing/zipWriter';
import { OFFICIAL_REGISTRY_URL } from '../shared/mcpRegistry';
import { startRegistry } from './mcp-registry/registry.mjs';
import { expect, openSection, test } from './support/fixtures';
import { startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * The Discover section against the real console and the official registry server (built from its
 * Go module, on a private PostgreSQL): a server is found, its exact command line is shown before
 * anything runs, and once confirmed it is installed and its tools are listed.
 */
const bundle = writeZip([
  { path: 'manifest.json', data: JSON.stringify({ name: 'bundled', server: { type: 'node', mcp_config: { command: process.execPath, args: ['${__dirname}/index.cjs'] } } }) },
  { path: 'index.cjs', data: BUNDLED_SERVER_SOURCE },
]);

let console_: TooldeckServer;
let registry: Awaited<ReturnType<typeof startRegistry>>;
let files: Server;

test.beforeAll(async () => {
  files = createServer((_, res) => res.end(bundle));
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(files.address() as AddressInfo).port}/bundled.mcpb`;
  registry = await startRegistry({ seed: [everythingEntry('2026.8.31'), bundleEntry('com.example.mcp/bundled', url, createHash('sha256').update(bundle).digest('hex'))] });
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-e2e-discover-'));
  const sources = new RegistrySources(dataDir);
  await sources.add(registry.url);
  await sources.setEnabled(OFFICIAL_REGISTRY_URL, false);
  console_ = await startTooldeckServer({ dataDir });
});

test.afterAll(async () => {
  await console_?.stop();
  await registry?.stop();
  files?.closeAllConnections();
  await new Promise((resolve) => files?.close(resolve));
});

test('a server found in the registry is installed after its exact command line is confirmed, and its tools are listed', async ({ page }) => {
  await page.goto(console_.url);
  await openSection(page, 'Discover');
  await expect(page.getByRole('button', { name: 'io.github.modelcontextprotocol/everything' })).toBeVisible();
  await page.getByRole('button', { name: 'com.example.mcp/bundled' }).click();

  const detail = page.getByLabel('Server com.example.mcp/bundled');
  await detail.getByRole('button', { name: 'Review and install' }).click();
  const line = page.getByLabel('Command line');
  await expect(line).toContainText(`${process.execPath} `);
  await expect(line).toContainText('/mcpb/bundled/index.cjs');

  await page.getByRole('button', { name: 'Install', exact: true }).click();
  await expect(page.getByText('Installed bundled')).toBeVisible();

  await openSection(page, 'Tools');
  await expect(page.getByText('bundle-echo').first()).toBeVisible();
});
