import { startEverythingHttp, type RunningPeer } from './peers/mcp/everything';
import { expect, openSection, test } from './support/fixtures';

test.describe.configure({ mode: 'serial' });

let peer: RunningPeer;
test.beforeAll(async () => {
  peer = await startEverythingHttp();
});
test.afterAll(() => peer?.close());

const researchTool = (origin: string, token: string) => `${origin}/tools?tool=${encodeURIComponent('mcp:research.simulate-research-query')}#token=${token}`;

test('a task that needs input: the operator answers the question, the timeline shows every status', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await openSection(page, 'Servers');
  await page.getByRole('button', { name: 'Add server' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add MCP server' });
  await dialog.getByLabel('Name').fill('research');
  await dialog.getByText('Streamable HTTP', { exact: true }).click();
  await dialog.getByRole('textbox', { name: /^URL/ }).fill(peer.url);
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(page.getByRole('listitem', { name: 'research' })).toContainText('Connected', { timeout: 20_000 });

  await page.goto(researchTool(tooldeck.origin, tooldeck.token));
  await expect(page.getByRole('heading', { name: 'simulate-research-query' })).toBeVisible();
  await expect(page.getByText('Runs as a task')).toBeVisible();
  await page.getByRole('textbox', { name: /topic/i }).fill('python');
  await page.getByRole('checkbox', { name: /ambiguous/i }).check();
  await page.getByRole('button', { name: 'Invoke' }).click();

  // The task pauses for input: the server's question arrives through tasks/result, tagged with the task.
  const question = page.getByRole('dialog', { name: /research asks for input/ });
  await expect(question).toContainText('multiple interpretations', { timeout: 20_000 });
  await expect(question).toContainText(/task \S+…/);
  await question.getByRole('combobox').first().click();
  await page.getByRole('option', { name: 'Monty Python comedy group' }).click();
  await question.getByRole('button', { name: /submit|accept|send/i }).click();

  const result = page.getByRole('region', { name: 'Result' });
  await expect(result).toContainText('Research Report: python (comedy)', { timeout: 20_000 });
  const timeline = result.getByLabel(/^Timeline of task /);
  await expect(timeline).toContainText('needs input');
  await expect(timeline).toContainText('Gathering sources...');
  await expect(timeline).toContainText('completed');
});

test('a detached task is listed in the Tasks tab, survives a reload, and its result is fetched there', async ({ page, tooldeck }) => {
  await page.goto(researchTool(tooldeck.origin, tooldeck.token));
  await page.getByRole('textbox', { name: /topic/i }).fill('glaciers');
  await page.getByRole('checkbox', { name: 'Don’t wait (start only)' }).check();
  await page.getByRole('button', { name: 'Invoke' }).click();
  const started = page.getByRole('region', { name: 'Task' });
  await expect(started).toContainText('Started task');
  const taskId = (await started.locator('code').first().textContent())!.trim();

  await page.goto(`${tooldeck.origin}/servers?server=research#token=${tooldeck.token}`);
  await page.getByRole('tab', { name: 'Tasks' }).click();
  const row = page.getByRole('row', { name: `Task ${taskId}` });
  await expect(row).toContainText('simulate-research-query');
  await page.reload();
  await page.getByRole('tab', { name: 'Tasks' }).click();
  // Followed in the background until it ends, so the row turns completed without anyone polling from the page.
  await expect(row).toContainText('completed', { timeout: 20_000 });
  await row.getByRole('button', { name: 'Result' }).click();
  await expect(page.getByRole('dialog', { name: `Result of task ${taskId}` })).toContainText('Research Report: glaciers');
});
