import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, test } from './support/fixtures';
import { cliPath, startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * The whole door, as an operator runs it: `tooldeck gateway` serves agents on one data dir while
 * `tooldeck serve` shows the console on the same one. The example workspace grants agent
 * `assistant` the long-running operation, which its ToolPermission says needs approval: the
 * agent's call (the official SDK client) is held, the held call shows in the console's Approvals
 * inbox (another process), Approve in the page lets it run, and the agent gets its result.
 */
let console_: TooldeckServer;
let gateway: ChildProcess;
let gatewayUrl: string;
let credential: string;
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-e2e-gateway-approvals-'));

test.beforeAll(async () => {
  const created = spawnSync(process.execPath, [cliPath, '--data-dir', dataDir, 'gateway', 'token', 'create', 'assistant'], { encoding: 'utf8' });
  credential = created.stdout.trim().split('\n').at(-1)!;
  console_ = await startTooldeckServer({ dataDir });
  gateway = spawn(process.execPath, [cliPath, '--data-dir', dataDir, 'gateway', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  gatewayUrl = await new Promise<string>((done, fail) => {
    let out = '';
    gateway.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Gateway listening on (\S+)/.exec(out);
      if (match) done(match[1]!);
    });
    gateway.once('exit', (code) => fail(new Error(`tooldeck gateway exited (${code}): ${out}`)));
  });
});

test.afterAll(async () => {
  if (gateway?.exitCode === null) {
    const exited = new Promise((done) => gateway.once('exit', done));
    gateway.kill('SIGTERM');
    await exited;
  }
  await console_?.stop();
});

test('an agent’s call held by the gateway is approved in the console’s inbox and completes in the agent', async ({ page }, testInfo) => {
  const agent = new Client({ name: 'assistant-runner', version: '1' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(gatewayUrl), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
  // The workspace's server starts in the background: the agent waits until the gateway offers the tool.
  await expect.poll(async () => (await agent.listTools()).tools.map((tool) => tool.name), { timeout: 45_000 }).toContain('everything.trigger-long-running-operation');

  const progress: string[] = [];
  const call = agent.callTool({ name: 'everything.trigger-long-running-operation', arguments: { duration: 1, steps: 1 } }, undefined, {
    onprogress: (note) => progress.push(note.message ?? ''),
    resetTimeoutOnProgress: true,
  });

  await page.goto(console_.url);
  const navigation = page.getByRole('navigation', { name: 'Sections' });
  await expect(navigation.getByLabel('1 waiting for a decision')).toHaveText('1', { timeout: 30_000 });
  await navigation.getByRole('button', { name: /^Approvals/ }).click();
  const card = page.getByRole('article', { name: /^Approval assistant-/ });
  await expect(card.getByLabel('Agent')).toHaveText('assistant');
  await expect(card.getByLabel('Tool')).toHaveText('mcp:everything.trigger-long-running-operation');
  await expect(card.getByRole('tree').getByRole('treeitem', { name: /"duration":\s*1/ })).toBeVisible();
  expect(progress[0]).toMatch(/Waiting for a person to approve mcp:everything.trigger-long-running-operation/);
  await page.screenshot({ path: testInfo.outputPath('gateway-approval-inbox.png'), fullPage: true });

  await card.getByRole('textbox', { name: /Comment/ }).fill('Go ahead.');
  await card.getByRole('button', { name: /^Approve / }).click();
  const result = await call;
  expect(result.isError).toBeFalsy();
  expect(JSON.stringify(result.content)).toMatch(/Long running operation completed/i);
  await expect(page.getByRole('table', { name: 'Decided approvals' })).toContainText('Go ahead.');
  await agent.close();
});
