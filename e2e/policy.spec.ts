import { execFile } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliPath, repoRoot } from './support/tooldeckServer';
import { expect, openSection, test } from './support/fixtures';

/**
 * What the console shows is what the real backend enforces: the example workspace's
 * ToolPermission (approval_required for writes), a deny rule written while the console runs, and a
 * Tool resource's timeout — in the UI and from the CLI on the same data dir.
 */
test.describe.configure({ mode: 'serial' });

const run = promisify(execFile);

// The console is shared with the specs that follow: leave its workspace as the example has it.
test.afterAll(({ tooldeck }) => {
  const workspace = join(tooldeck.dataDir, 'workspace');
  copyFileSync(join(repoRoot, 'examples/workspace/tools.yaml'), join(workspace, 'tools.yaml'));
  rmSync(join(workspace, 'deny-echo.yaml'), { force: true });
});

async function openTool(page: import('@playwright/test').Page, name: string) {
  await openSection(page, 'Tools');
  await page.getByRole('textbox', { name: 'Search tools' }).fill(name.split('.').pop()!);
  await page.getByRole('option', { name }).click();
}

test('a write-class tool under approval_required shows approval_required for the operator with its rule and file, and runs once approved', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await openTool(page, 'mcp:everything.trigger-long-running-operation');
  const badge = page.getByRole('button', { name: 'Policy for you: approval_required by everything-changes-need-approval' }).first();
  await expect(badge).toBeVisible();
  // The Tool resource's runtime (tools.yaml: timeout 2m) is what the call starts with.
  await expect(page.getByRole('button', { name: 'Timeouts: 2 min' })).toBeVisible();

  await page.getByRole('textbox', { name: /duration/i }).fill('1');
  await page.getByRole('textbox', { name: /steps/i }).fill('1');
  await page.getByRole('button', { name: 'Invoke' }).click();
  const dialog = page.getByRole('dialog', { name: /Invoke/ });
  await expect(dialog).toContainText('everything-changes-need-approval');
  await expect(dialog.getByRole('button', { name: 'permissions.yaml' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Confirm and invoke' }).click();
  await expect(page.getByRole('region', { name: 'Result' })).toContainText('Long running operation completed');
});

test("a Tool resource's timeout is the one that fires", async ({ page, tooldeck }) => {
  const tools = join(tooldeck.dataDir, 'workspace', 'tools.yaml');
  writeFileSync(
    tools,
    'apiVersion: orloj.dev/v1\nkind: Tool\nmetadata: {name: long-running-operation}\nspec:\n  type: mcp\n  mcp_server_ref: everything\n  mcp_tool_name: trigger-long-running-operation\n  operation_classes: [read]\n  runtime: {timeout: 1s, retry: {max_attempts: 1}}\n',
  );
  await page.goto(tooldeck.url);
  await openTool(page, 'mcp:everything.trigger-long-running-operation');
  await expect(page.getByRole('button', { name: 'Timeouts: 1 s' })).toBeVisible();
  await page.getByRole('textbox', { name: /duration/i }).fill('5');
  await page.getByRole('textbox', { name: /steps/i }).fill('1');
  await page.getByRole('button', { name: 'Invoke' }).click();
  const result = page.getByRole('region', { name: 'Result' });
  await expect(result).toContainText('Timeout');
  await expect(result).toContainText('did not answer within 1 s');
});

test('a deny rule blocks in the UI and from the CLI with the same reason', async ({ page, tooldeck }) => {
  writeFileSync(
    join(tooldeck.dataDir, 'workspace', 'deny-echo.yaml'),
    'apiVersion: orloj.dev/v1\nkind: ToolPermission\nmetadata: {name: no-echo}\nspec:\n  tool_ref: everything--echo\n  operation_rules:\n    - {operation_class: "*", verdict: deny}\n',
  );
  await page.goto(tooldeck.url);
  await openTool(page, 'mcp:everything.echo');
  await expect(page.getByRole('button', { name: 'Policy for you: deny by no-echo' }).first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Invoke' })).toBeDisabled();
  const reason = 'no-echo (deny-echo.yaml): read → deny';
  await page.getByRole('button', { name: 'Policy for you: deny by no-echo' }).first().click();
  await expect(page.getByRole('button', { name: 'deny-echo.yaml' }).first()).toBeVisible();

  const cli = await run(process.execPath, [cliPath, '--data-dir', tooldeck.dataDir, 'mcp', 'call', 'echo', 'everything', '--args', '{"message":"hi"}']).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
  expect(cli.code).toBe(1);
  expect(cli.stderr).toContain(`PolicyDenied: Policy denies mcp:everything.echo: ${reason}.`);
});

test("a tool the workspace's tool_filter keeps out of the registry explains itself", async ({ page, tooldeck }) => {
  await page.goto(`${tooldeck.origin}/servers?server=everything#token=${tooldeck.token}`);
  await expect(page.getByRole('button', { name: 'Declared in everything.yaml' })).toBeVisible();
  const tools = page.getByRole('table', { name: 'Tools of everything' });
  await tools.getByRole('row', { name: /get-structured-content/ }).click();
  const dialog = page.getByRole('dialog', { name: 'get-structured-content is not in the registry' });
  await expect(dialog).toContainText('excluded by tool_filter.include in everything.yaml');
  await dialog.getByRole('button', { name: 'Open everything.yaml' }).click();
  await expect(page.getByRole('heading', { name: 'everything.yaml' })).toBeVisible();
});
