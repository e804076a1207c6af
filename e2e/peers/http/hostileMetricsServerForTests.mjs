// A hand-written hostile peer for tests: what a gateway replica's metrics port must never be
// trusted to be. Each port misbehaves one way (ports PORT-4 … PORT-1); PORT itself answers 200 last, so
// the port the test waits on being open means all are.
import { createServer } from 'node:http';

const port = Number(process.env.PORT);
const host = process.env.HOST ?? '0.0.0.0';

const behaviours = [
  // Endless: valid-looking lines for as long as the reader keeps reading.
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    const chunk = `# TYPE tooldeck_gateway_calls_total counter\n${'tooldeck_gateway_calls_total{agent="flood"} 1\n'.repeat(1_000)}`;
    const write = () => {
      while (res.write(chunk));
    };
    res.on('drain', write);
    write();
  },
  // Silent: takes the request and never answers.
  () => undefined,
  // Not metrics at all: a page.
  (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome to nginx!</body></html>\n'),
  // The gateway's series with hostile labels and values.
  (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(
      [
        '# TYPE tooldeck_gateway_calls_total counter',
        'tooldeck_gateway_calls_total{agent="\u001b[31mred\u001b[0m"} 5',
        'tooldeck_gateway_calls_total{agent="__proto__"} 2',
        'tooldeck_gateway_calls_total{agent="nan"} NaN',
        'tooldeck_gateway_calls_total{agent="inf"} +Inf',
        'tooldeck_gateway_held_calls{agent="negative"} -3',
        'tooldeck_gateway_calls_total{agent="unterminated} 1',
        'tooldeck_gateway_calls_total{agent="__proto__",agent="twice"} 9',
        '',
      ].join('\n'),
    ),
];

const servers = behaviours.map((behave) => createServer(behave));
servers.forEach((server, i) => server.listen(port - behaviours.length + i, host));
createServer((_req, res) => res.end('ok\n')).listen(port, host);
