import { startPrivateRabbitMq, type PrivateRabbitMq } from './bus/privateRabbitMq';
import { RockBotShapedAgent } from './bus/rockbotShapedAgent';
import { expect, openSection, test } from './support/fixtures';

// The Bus section against a real RabbitMQ node (a private one for this spec) and the console's own
// bridge: started from the form, a RockBot-shaped agent's tool call answered and shown live with
// its agent, and a request without reply_to dead-lettered, inspected and purged from the section.

let broker: PrivateRabbitMq;
let agent: RockBotShapedAgent | undefined;

test.beforeAll(async () => {
  broker = await startPrivateRabbitMq();
});

test.afterAll(async () => {
  await agent?.close();
  await broker?.stop();
});

test('start the bridge, watch a RockBot agent call through it, inspect and purge a dead letter', async ({ page, tooldeck }) => {
  await page.goto(`${tooldeck.origin}/bus#token=${tooldeck.token}`);
  await expect(page.getByRole('heading', { name: 'Bus', exact: true })).toBeVisible({ timeout: 20_000 });
  const connection = page.getByRole('region', { name: 'Bus connection' });
  await expect(connection.getByLabel('Connection state')).toHaveText('Stopped');

  await connection.getByLabel('Broker URL').fill(broker.url);
  await connection.getByLabel('Bridge name').fill('console');
  await connection.getByRole('button', { name: 'Start the bridge' }).click();
  await expect(connection.getByLabel('Connection state')).toHaveText('Connected', { timeout: 30_000 });
  await expect(connection).toContainText('rockbot.mcp-bridge.console');
  // The password never comes back to the page.
  await expect(connection.getByLabel('Broker')).not.toContainText(':guest@');

  agent = await RockBotShapedAgent.connect(broker.url, 'planner', 'console');
  // The example workspace's server connects in the background: retry until the bridge finds echo.
  await expect
    .poll(async () => (await agent!.invoke('echo', { message: 'from RockBot' })).body.content, { timeout: 45_000 })
    .toBe('Echo: from RockBot');

  const exchanges = page.getByRole('table', { name: 'Requests and replies' });
  await expect(exchanges).toContainText('echo');
  await expect(exchanges).toContainText('Result');
  await expect(page.getByRole('region', { name: 'Traffic per agent' }).getByRole('group', { name: 'Agent planner' })).toBeVisible();

  const messageId = await agent.publish('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'lost-1', toolName: 'echo', arguments: '{"message":"nowhere to answer"}' })));
  const deadLetters = page.getByRole('region', { name: 'Dead letters' });
  const table = deadLetters.getByRole('table', { name: 'Dead letters' });
  const row = table.getByRole('row').filter({ has: page.getByRole('button', { name: `Replay ${messageId}` }) });
  await expect(async () => {
    await deadLetters.getByRole('button', { name: 'Refresh' }).click();
    await expect(row).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(row).toContainText('planner');
  await expect(row).toContainText('it has no reply_to, so no answer could reach its sender');
  await expect(table).toContainText('nowhere to answer');
  await page.screenshot({ path: test.info().outputPath('bus.png'), fullPage: true });

  await deadLetters.getByRole('button', { name: 'Purge' }).click();
  await page.getByRole('dialog', { name: 'Purge the dead letter?' }).getByRole('button', { name: 'Purge' }).click();
  await expect(row).toHaveCount(0, { timeout: 20_000 });

  await connection.getByRole('button', { name: 'Stop the bridge' }).click();
  await expect(connection.getByLabel('Connection state')).toHaveText('Stopped', { timeout: 20_000 });
  await openSection(page, 'History');
  await expect(page.getByRole('grid', { name: 'Calls' })).toContainText('echo');
});
