import { startSampleAgent, type RunningPeer } from './peers/a2a/sampleAgent';
import { expect, openSection, test } from './support/fixtures';

let agent: RunningPeer;
test.beforeAll(async () => {
  agent = await startSampleAgent({ name: 'Sample Agent', stepDelayMs: 150 });
});
test.afterAll(() => agent?.close());

test('add the A2A 1.0 sample agent, see its skills, send a message and watch the streamed states and artifacts', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await openSection(page, 'A2A agents');
  await page.getByRole('button', { name: 'Add agent' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add A2A agent' });
  await dialog.getByRole('textbox', { name: /^URL/ }).fill(agent.url);
  await dialog.getByRole('textbox', { name: /^Name/ }).fill('sample');
  await dialog.getByRole('button', { name: /^(Add agent|Save)$/ }).click();
  await expect(dialog).toBeHidden();

  // The card's skills are listed, and they are registry entries too.
  await expect(page.getByText('Works in steps, then returns a text report').first()).toBeVisible();
  await page.getByRole('tab', { name: /Conversation/ }).click();
  await page.getByRole('textbox', { name: 'Message' }).fill('/report quarterly numbers');
  await page.getByRole('button', { name: 'Send' }).click();

  const timeline = page.getByRole('list', { name: 'Task timeline' });
  await expect(timeline).toContainText('WORKING');
  await expect(timeline).toContainText('COMPLETED', { timeout: 20_000 });
  const artifacts = page.getByRole('region', { name: 'Artifacts' }).last();
  await expect(artifacts).toBeVisible();
  await expect(artifacts).toContainText(/report/i);

  await openSection(page, 'Tools');
  await page.getByRole('textbox', { name: 'Search tools' }).fill('report');
  await expect(page.getByRole('option', { name: 'a2a:sample.report' })).toBeVisible();
});
