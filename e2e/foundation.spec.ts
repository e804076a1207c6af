import { request as httpRequest } from 'node:http';
import { expect, openSection, test } from './support/fixtures';

function rawStatus(port: number, path: string, headers: Record<string, string>) {
  return new Promise<number>((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    })
      .on('error', reject)
      .end();
  });
}

test('the page loads with the token, drops it from the address bar and shows the backend version', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await openSection(page, 'About');
  await expect(page.getByRole('heading', { name: 'About Tooldeck' })).toBeVisible();
  const backend = page.getByRole('table', { name: 'Backend information' });
  await expect(backend.getByRole('row', { name: /Version/ })).toContainText('0.1.0');
  await expect(backend.getByRole('row', { name: /Host/ })).toContainText('web');
  expect(page.url()).not.toContain('token=');
});

test('the heartbeat ticks over SSE', async ({ page, tooldeck }) => {
  await page.goto(`${tooldeck.origin}/about#token=${tooldeck.token}`);
  const counter = page.getByRole('status', { name: 'Heartbeat count' });
  await expect(counter).toHaveText(/^\d+$/);
  const first = Number(await counter.textContent());
  await expect.poll(async () => Number(await counter.textContent()), { timeout: 5_000 }).toBeGreaterThan(first + 1);
});

test('a page opened without the token explains how to get in and reaches no API', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.origin);
  await expect(page.getByRole('alert')).toContainText('Open the link printed by tooldeck serve');
});

test('an API call without the token gets 401', async ({ request, tooldeck }) => {
  const response = await request.get(`${tooldeck.origin}/trpc/system.info`);
  expect(response.status()).toBe(401);
});

test('a request with a foreign Host gets 403, static or API', async ({ tooldeck }) => {
  expect(await rawStatus(tooldeck.port, '/', { Host: `attacker.example:${tooldeck.port}` })).toBe(403);
  expect(await rawStatus(tooldeck.port, '/trpc/system.info', { Host: `attacker.example:${tooldeck.port}`, Authorization: `Bearer ${tooldeck.token}` })).toBe(403);
});

test('a request with a foreign Origin gets 403', async ({ tooldeck }) => {
  expect(await rawStatus(tooldeck.port, '/trpc/system.info', { Host: `127.0.0.1:${tooldeck.port}`, Origin: 'http://attacker.example', Authorization: `Bearer ${tooldeck.token}` })).toBe(403);
});
