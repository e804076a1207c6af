import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openSection, test } from './support/fixtures';

test('the example workspace runs locally: its McpServer is Ready with generated Tools, and its tools are in the browser', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await openSection(page, 'Resources');
  await page.getByRole('listitem', { name: /everything\.yaml/ }).click();
  const status = page.getByRole('region', { name: 'Reconcile status' });
  await expect(status).toContainText('Ready', { timeout: 20_000 });
  await expect(status).toContainText('everything--echo');
  await openSection(page, 'Tools');
  await expect(page.getByRole('option', { name: 'mcp:everything.echo' })).toBeVisible();
  // tool_filter.include keeps the other tools out of the registry.
  await expect(page.getByRole('option', { name: 'mcp:everything.get-env' })).toHaveCount(0);
});

test('an invalid LanguageTool is marked at both fields; once fixed it saves', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await openSection(page, 'Resources');
  await page.getByRole('button', { name: 'New file' }).click();
  await page.getByRole('dialog').getByRole('textbox').fill('tool.yaml');
  await page.getByRole('dialog').getByRole('button', { name: /Create|OK|Open/ }).click();
  const editor = page.getByRole('region', { name: 'YAML editor' });
  // Monaco mounts after its chunk loads: click into it once it is there, and know it has focus
  // before typing (a key pressed earlier would select the page instead).
  await editor.locator('.monaco-editor .view-lines').click();
  await expect(editor.locator('.monaco-editor')).toHaveClass(/\bfocused\b/);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  // One line of flow-style YAML: the editor's auto-indent cannot reshape it while it is typed.
  await page.keyboard.insertText('{apiVersion: langop.io/v1alpha1, kind: LanguageTool, metadata: {name: memory}, spec: {port: "8080"}}');
  const problems = page.locator('[aria-label="Problems"]');
  await expect(problems).toContainText('spec.image', { timeout: 10_000 });
  await expect(problems).toContainText('spec.port');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText('{apiVersion: langop.io/v1alpha1, kind: LanguageTool, metadata: {name: memory}, spec: {image: "ghcr.io/example/memory-mcp:1.0", port: 8080}}');
  await expect(problems).toContainText('No problems', { timeout: 10_000 });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('listitem', { name: /tool\.yaml/ })).toBeVisible();
});

test('a stdio McpServer the open folder gains (a pull) does not start until its exact line is confirmed in the console; then it runs', async ({ page, tooldeck }) => {
  const file = join(tooldeck.dataDir, 'workspace', 'gained.yaml');
  const line = `FROM=pull '\${node}' '\${module:@modelcontextprotocol/server-everything/dist/index.js}' stdio`;
  try {
    await page.goto(tooldeck.url);
    await openSection(page, 'Resources');
    // Written behind the console's back, as a git pull would: the folder watcher picks it up.
    writeFileSync(
      file,
      "apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: gained}\nspec:\n  transport: stdio\n  command: ${node}\n  args: ['${module:@modelcontextprotocol/server-everything/dist/index.js}', stdio]\n  env: [{name: FROM, value: pull}]\n",
    );
    await page.getByRole('listitem', { name: /gained\.yaml/ }).click();
    const status = page.getByRole('region', { name: 'Reconcile status' });
    await expect(status).toContainText(`launch not confirmed: ${line}`, { timeout: 20_000 });
    await expect(status).toContainText('Error');
    await status.getByRole('button', { name: 'Review the command of gained' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run this command?' });
    await expect(dialog.getByLabel('Command line')).toHaveText(line);
    await dialog.getByRole('button', { name: 'Run' }).click();
    await expect(status).toContainText('Ready', { timeout: 20_000 });
    await expect(status).not.toContainText('launch not confirmed');
  } finally {
    // The console is shared with the specs that follow: leave its workspace as the example has it.
    rmSync(file, { force: true });
  }
});
