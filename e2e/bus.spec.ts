import { startPrivateRabbitMq, type PrivateRabbitMq } from './bus/privateRabbitMq';
import { RockBotShapedAgent } from './bus/rockbotShapedAgent';
import { RockBotShapedBridge } from './bus/rockbotShapedBridge';
import { expect, openSection, test } from './support/fixtures';

// The Bus section against a real RabbitMQ node (a private one for this spec) and the console's own
// bridge: started from the form, a RockBot-shaped agent's tool call answered and shown live with
// its agent, and a request without reply_to dead-lettered, inspected and purged from the section.

let broker: PrivateRabbitMq;
let agent: RockBotShapedAgent | undefined;
let scheduler: RockBotShapedBridge | undefined;

test.beforeAll(async () => {
  broker = await startPrivateRabbitMq();
});

test.afterAll(async () => {
  await agent?.close();
  await scheduler?.close();
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

  // The example workspace's `assistant` (its LanguageAgent is granted server-everything), as its own
  // broker user naming itself in user_id: the bridge takes the calling agent from the broker's word.
  agent = await RockBotShapedAgent.connect(broker.addUser('assistant', 'assistant-pass'), 'assistant', 'console', { userId: 'assistant' });
  // The example workspace's server connects in the background: retry until the bridge finds echo.
  // Named by RockBot's server header: the worker's console may hold other servers with an echo
  // (an earlier spec's), and without it the first server that has the tool answers.
  await expect
    .poll(async () => (await agent!.invoke('echo', { message: 'from RockBot' }, { server: 'everything' })).body.content, { timeout: 45_000 })
    .toBe('Echo: from RockBot');

  const exchanges = page.getByRole('table', { name: 'Requests and replies' });
  await expect(exchanges).toContainText('echo');
  await expect(exchanges).toContainText('Result');
  await expect(page.getByRole('region', { name: 'Traffic per agent' }).getByRole('group', { name: 'Agent assistant' })).toBeVisible();

  const messageId = await agent.publish('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'lost-1', toolName: 'echo', arguments: '{"message":"nowhere to answer"}' })));
  const deadLetters = page.getByRole('region', { name: 'Dead letters' });
  const table = deadLetters.getByRole('table', { name: 'Dead letters' });
  const row = table.getByRole('row').filter({ has: page.getByRole('button', { name: `Replay ${messageId}` }) });
  await expect(async () => {
    await deadLetters.getByRole('button', { name: 'Refresh' }).click();
    await expect(row).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(row).toContainText('assistant');
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

test("another RockBot bridge's tool: listed in the Bus section, opened in Tools, called through the form", async ({ page, tooldeck }) => {
  // A RockBot-shaped bridge (hand-written from RockBot's wire format) serving one server of its own.
  scheduler = await RockBotShapedBridge.start(broker.url, 'scheduler', [
    {
      serverName: 'calendar',
      tools: {
        next_meeting: {
          description: 'The next meeting on a day',
          parametersSchema: { type: 'object', properties: { day: { type: 'string', description: 'A weekday' } }, required: ['day'] },
          run: (args) => `Standup at 09:30 on ${String(args.day)}`,
        },
      },
    },
  ]);
  await page.goto(`${tooldeck.origin}/bus#token=${tooldeck.token}`);
  const connection = page.getByRole('region', { name: 'Bus connection' });
  if ((await connection.getByLabel('Connection state').textContent()) !== 'Connected') {
    await connection.getByLabel('Broker URL').fill(broker.url);
    await connection.getByLabel('Bridge name').fill('console');
    await connection.getByRole('button', { name: 'Start the bridge' }).click();
  }
  await expect(connection.getByLabel('Connection state')).toHaveText('Connected', { timeout: 30_000 });

  const peers = page.getByRole('table', { name: 'Other bridges on the bus' });
  await expect(peers).toContainText('scheduler', { timeout: 30_000 });
  await expect(peers).toContainText('calendar');
  await page.screenshot({ path: test.info().outputPath('bus-peers.png'), fullPage: true });
  await peers.getByRole('button', { name: 'next_meeting' }).click();

  await expect(page.getByRole('heading', { name: 'next_meeting' })).toBeVisible();
  await page.getByRole('textbox', { name: /^day/ }).fill('Tuesday');
  await page.getByRole('button', { name: 'Invoke' }).click();
  await expect(page.getByRole('region', { name: 'Result' })).toContainText('Standup at 09:30 on Tuesday', { timeout: 30_000 });
  // It went over the bus to that bridge, addressed to it.
  expect(scheduler.requests.at(-1)).toMatchObject({ toolName: 'next_meeting', server: 'calendar', destination: 'mcp-bridge.scheduler' });
});
