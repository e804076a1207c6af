import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../platform/SecretStore';
import { InvocationPipeline } from '../registry/InvocationPipeline';
import { MemoryInvocationRecorder } from '../registry/testing/MemoryInvocationRecorder';
import { ToolCatalog } from '../registry/ToolCatalog';
import { httpToolEntries } from './httpToolEntries';
import { HttpToolExecutor } from './HttpToolExecutor';
import { loadClawDescriptor } from './loadClawDescriptor';
import { parseClawDescriptor } from './ClawDescriptor';
import { operatorCaller } from '../../shared/caller';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
let flaky = 0;
let aborted = 0;
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    const url = new URL(req.url!, 'http://localhost');
    if (url.pathname.startsWith('/api/v1/market_context/')) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ balance: 50_000, positions: [] }));
    } else if (url.pathname === '/api/v1/trades') {
      res.statusCode = 201;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ id: 'T-1', ...JSON.parse(body || '{}') }));
    } else if (url.pathname === '/flaky') {
      res.statusCode = ++flaky < 3 ? 503 : 200;
      res.end(flaky < 3 ? 'busy' : 'finally');
    } else if (url.pathname === '/hang') {
      res.on('close', () => aborted++);
    } else {
      res.statusCode = 404;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ error: 'no such symbol' }));
    }
  });
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const seedDescriptor = fileURLToPath(new URL('./testing/trading-api.claw-describe.json', import.meta.url));

async function tradingDesk(executor: HttpToolExecutor) {
  const { descriptor } = await loadClawDescriptor(seedDescriptor);
  const extra = parseClawDescriptor(
    {
      version: 2,
      tools: [
        { name: 'find', description: 'Find', inputSchema: { type: 'object' }, http: { method: 'GET', path: '/api/v1/market_context/{claw_id}' } },
        { name: 'order', description: 'Order', inputSchema: { type: 'object' }, http: { method: 'PUT', path: '/api/v1/trades', body: 'json', body_key: 'order' } },
        { name: 'flaky', description: 'Flaky', inputSchema: { type: 'object' }, http: { method: 'GET', path: '/flaky' } },
        { name: 'hang', description: 'Hang', inputSchema: { type: 'object' }, http: { method: 'GET', path: '/hang' } },
        { name: 'quote', description: 'Quote', inputSchema: { type: 'object' }, http: { method: 'GET', path: '/quotes/{symbol}' } },
      ],
      auth: descriptor.auth,
    },
    'extra',
  );
  const catalog = new ToolCatalog();
  const entries = [
    ...httpToolEntries(descriptor, { service: 'trading-api', baseUrl: base }),
    ...httpToolEntries(extra, { service: 'trading-api', baseUrl: `${base}/`, config: { flaky: { runtime: { retry: { max_attempts: 3 } } } } }),
  ];
  catalog.replaceSource({ kind: 'http', name: 'trading-api' }, entries, executor);
  const recorder = new MemoryInvocationRecorder();
  return { pipeline: new InvocationPipeline({ catalog, recorder }), recorder };
}

describe('HttpToolExecutor against a local HTTP service (Clawdapus http tools)', () => {
  it('fills {param} from the arguments, URL-encoded, sends the rest as query for GET, with the bearer token from auth.env', async () => {
    const { pipeline } = await tradingDesk(new HttpToolExecutor({ env: { TRADING_API_TOKEN: 'tok-env' } }));
    const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'http:trading-api.find', arguments: { claw_id: 'analyst 0/1', symbols: ['AAPL', 'MSFT'], limit: 5, filter: { open: true } } });
    expect(outcome.record.status).toBe('ok');
    const request = seen.at(-1)!;
    expect(request.method).toBe('GET');
    expect(request.url).toBe('/api/v1/market_context/analyst%200%2F1?symbols=AAPL&symbols=MSFT&limit=5&filter=%7B%22open%22%3Atrue%7D');
    expect(request.headers.authorization).toBe('Bearer tok-env');
    expect(request.body).toBe('');
    expect(outcome.result).toEqual({ content: [{ type: 'text', text: '{"balance":50000,"positions":[]}' }], structuredContent: { balance: 50_000, positions: [] } });
  });

  it('sends the remaining arguments as a JSON body for other methods, under body_key when set', async () => {
    const { pipeline } = await tradingDesk(new HttpToolExecutor({ env: { TRADING_API_TOKEN: 'tok' } }));
    const trade = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'http:trading-api.execute_trade', arguments: { symbol: 'AAPL', side: 'buy', quantity: 10 } });
    expect(trade.record.status).toBe('ok');
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/api/v1/trades', body: '{"symbol":"AAPL","side":"buy","quantity":10}' });
    expect(seen.at(-1)!.headers['content-type']).toBe('application/json');
    expect(trade.result?.structuredContent).toEqual({ id: 'T-1', symbol: 'AAPL', side: 'buy', quantity: 10 });

    await pipeline.invoke({ caller: operatorCaller('cli'), name: 'http:trading-api.order', arguments: { symbol: 'MSFT' } });
    expect(seen.at(-1)).toMatchObject({ method: 'PUT', body: '{"order":{"symbol":"MSFT"}}' });
  });

  it('refuses a call whose path argument is missing, without sending anything', async () => {
    const { pipeline } = await tradingDesk(new HttpToolExecutor({ env: { TRADING_API_TOKEN: 'tok' } }));
    const before = seen.length;
    const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'http:trading-api.quote', arguments: {} });
    expect(outcome.error).toEqual({
      code: 'InvalidArguments',
      message: 'http:trading-api.quote: the argument "symbol" is required to fill the path /quotes/{symbol}.',
      retryable: false,
    });
    expect(seen.length).toBe(before);
  });

  it('takes the token from the SecretStore when the variable is unset, and says where to put one when neither has it', async () => {
    const secrets = new MemorySecretStore();
    await secrets.set('http:trading-api/token', 'tok-store');
    const stored = await tradingDesk(new HttpToolExecutor({ env: {}, secretStore: secrets }));
    await stored.pipeline.invoke({ caller: operatorCaller('cli'), name: 'http:trading-api.get_market_context', arguments: { claw_id: 'a' } });
    expect(seen.at(-1)!.headers.authorization).toBe('Bearer tok-store');

    const none = await tradingDesk(new HttpToolExecutor({ env: {}, secretStore: new MemorySecretStore() }));
    const outcome = await none.pipeline.invoke({ caller: operatorCaller('cli'), name: 'http:trading-api.get_market_context', arguments: { claw_id: 'a' } });
    expect(outcome.error).toMatchObject({
      code: 'Unauthorized',
      message: 'http:trading-api.get_market_context needs a token: set $TRADING_API_TOKEN or store the secret http:trading-api/token.',
    });
  });

  it('returns an HTTP error status as a tool error result (isError), not retried', async () => {
    const { pipeline } = await tradingDesk(new HttpToolExecutor({ env: { TRADING_API_TOKEN: 'tok' } }));
    const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'http:trading-api.quote', arguments: { symbol: 'ZZZZ' } });
    expect(outcome.record).toMatchObject({ status: 'error', isError: true, attempts: 1 });
    expect(outcome.result).toEqual({
      content: [{ type: 'text', text: 'HTTP 404: {"error":"no such symbol"}' }],
      structuredContent: { ok: false, status_code: 404, error: { code: 'http_404', message: 'Service returned HTTP 404', details: { error: 'no such symbol' } } },
      isError: true,
    });
  });

  it('treats 503 as transient: retried per the tool runtime until it answers', async () => {
    const { pipeline } = await tradingDesk(new HttpToolExecutor({ env: { TRADING_API_TOKEN: 'tok' } }));
    const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'http:trading-api.flaky' });
    expect(outcome.record).toMatchObject({ status: 'ok', attempts: 3, resultPreview: 'finally' });
  });

  it('reports an unreachable service as ConnectionFailed (retryable)', async () => {
    const catalog = new ToolCatalog();
    const descriptor = parseClawDescriptor({ version: 2, tools: [{ name: 'ping', description: 'Ping', inputSchema: { type: 'object' }, http: { method: 'GET', path: '/ping' } }] }, 'x');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadBase = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    catalog.replaceSource({ kind: 'http', name: 'gone' }, httpToolEntries(descriptor, { service: 'gone', baseUrl: deadBase }), new HttpToolExecutor());
    const outcome = await new InvocationPipeline({ catalog }).invoke({ caller: operatorCaller('cli'), name: 'http:gone.ping' });
    expect(outcome.error).toMatchObject({ code: 'ConnectionFailed', retryable: true, message: expect.stringContaining(`cannot reach ${deadBase}`) });
  });

  it('aborts the HTTP request when the call times out', async () => {
    const { pipeline } = await tradingDesk(new HttpToolExecutor({ env: { TRADING_API_TOKEN: 'tok' } }));
    const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'http:trading-api.hang', timeoutMs: 200 });
    expect(outcome.record.status).toBe('timeout');
    await expect.poll(() => aborted).toBe(1);
  });
});
