import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small HTTP service of our own with a Clawdapus `claw.describe` v2 descriptor at
 * /.well-known/claw-describe.json: the kind of service whose tools Tooldeck calls over plain HTTP.
 */
export async function startWeatherService(): Promise<{ url: string; descriptorUrl: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname === '/.well-known/claw-describe.json') {
      res.setHeader('Content-Type', 'application/json');
      res.end(
        JSON.stringify({
          version: 2,
          tools: [
            {
              name: 'get_forecast',
              description: 'Weather forecast for a city: temperature and conditions for the next days',
              inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city'] },
              http: { method: 'GET', path: '/forecast/{city}' },
              annotations: { readOnly: true },
            },
          ],
        }),
      );
      return;
    }
    const forecast = /^\/forecast\/([^/]+)$/.exec(url.pathname);
    if (forecast && req.method === 'GET') {
      const city = decodeURIComponent(forecast[1]!);
      const days = Number(url.searchParams.get('days') ?? 1);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ city, days: Array.from({ length: days }, (_, i) => ({ day: i + 1, tempC: 18 + i, conditions: 'sunny' })) }));
      return;
    }
    res.statusCode = 404;
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, descriptorUrl: `${url}/.well-known/claw-describe.json`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
