// A stdio MCP server written for the tests, speaking raw JSON-RPC so it can break the rules on
// purpose (no real server does these things deliberately). Flags:
//   --duplicate-tools   tools/list names `echo` twice (the second definition differs)
//   --bad-schema        two tools have a schema that is not an object schema: `broken`'s inputSchema is a
//                       string, `scalar`'s is the schema of a string ({"type":"string"}, which the spec forbids)
//   --garbage-reply     answers tools/call with a line that is not JSON
//   --hang-call         never answers tools/call
//   --slow-reply        writes each tools/call reply in 20 pieces, 100 ms apart (2 s in all)
//   --ignore-eof        keeps running when stdin closes, and ignores SIGTERM and SIGINT
//   --pid-file FILE     writes its pid there when a tools/call arrives (a call is then in flight)
//   --cancel-file FILE  appends each notifications/cancelled it receives there, one JSON line each: its
//                       params and the method of the request it names (so a test can tell the client
//                       canceled the call through the protocol, not only by ending the process)
import { appendFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const flags = new Set(process.argv.slice(2));
const pidFile = process.argv[process.argv.indexOf('--pid-file') + 1];
const cancelFile = process.argv[process.argv.indexOf('--cancel-file') + 1];
if (flags.has('--ignore-eof')) {
  process.on('SIGTERM', () => process.stderr.write('misbehaving server: ignoring SIGTERM\n'));
  process.on('SIGINT', () => process.stderr.write('misbehaving server: ignoring SIGINT\n'));
  setInterval(() => {}, 1 << 30);
}

const echo = { name: 'echo', description: 'Echoes its message', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } };
const tools = [
  echo,
  { name: 'add', description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
];
if (flags.has('--duplicate-tools')) tools.push({ ...echo, description: 'A second echo with the same name', inputSchema: { type: 'object' } });
if (flags.has('--bad-schema')) {
  tools.push({ name: 'broken', description: 'Its schema is not an object', inputSchema: 'not a schema' });
  tools.push({ name: 'scalar', description: 'Its schema describes a string, not an object', inputSchema: { type: 'string' } });
}

/** The method of every request received, by id: what a notifications/cancelled names. */
const received = new Map();
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  const { id, method, params } = message;
  // Written at once (synchronously): the client may end this process right after canceling.
  if (method === 'notifications/cancelled' && flags.has('--cancel-file') && cancelFile) {
    appendFileSync(cancelFile, `${JSON.stringify({ ...params, canceledMethod: received.get(params?.requestId) })}\n`);
  }
  if (id === undefined) return;
  received.set(id, method);
  switch (method) {
    case 'initialize':
      return send({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'misbehaving-server-for-tests', version: '1.0.0' } } });
    case 'ping':
      return send({ jsonrpc: '2.0', id, result: {} });
    case 'tools/list':
      return send({ jsonrpc: '2.0', id, result: { tools } });
    case 'tools/call': {
      if (flags.has('--pid-file') && pidFile) writeFileSync(pidFile, String(process.pid));
      if (flags.has('--hang-call')) return;
      if (flags.has('--garbage-reply')) return process.stdout.write('Traceback (most recent call last): \u001b[31mKeyError\u001b[0m: something broke\n');
      const args = params?.arguments ?? {};
      const text = params?.name === 'add' ? String((args.a ?? 0) + (args.b ?? 0)) : `Echo: ${args.message ?? ''}`;
      if (!flags.has('--slow-reply')) return send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
      const line = `${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: text.padEnd(200_000, '.') }] } })}\n`;
      const piece = Math.ceil(line.length / 20);
      let at = 0;
      const next = () => {
        process.stdout.write(line.slice(at, at + piece));
        at += piece;
        if (at < line.length) setTimeout(next, 100);
      };
      return next();
    }
    default:
      return send({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
  }
});
