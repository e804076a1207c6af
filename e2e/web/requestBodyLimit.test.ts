import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTooldeckServer, type TooldeckServer } from '../support/tooldeckServer';

/** Peak resident memory of a process (Linux), in bytes. */
function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) * 1024;
}

/**
 * Streams `total` bytes as a chunked body (no Content-Length): the server must count as they come.
 * Resolves with the answer's status, or 'reset' when the connection was cut before the answer could
 * be read: a server that refuses and closes while the client is still sending makes the client's
 * kernel reset the connection, and whether the client read the answer first is a race (a browser
 * sees the same). Either way the body was refused; the test must not hang on which.
 */
function streamBody(server: TooldeckServer, total: number, headers: Record<string, string>) {
  return new Promise<{ status: number | 'reset'; sent: number }>((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/trpc/tools.invoke', headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      answered = true;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, sent }));
      res.on('error', () => resolve({ status: res.statusCode!, sent }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') return reject(error);
      if (!answered) resolve({ status: 'reset', sent });
    });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const pump = () => {
      // Once answered, the rest of the body is not sent (as browsers and curl do).
      while (sent < total && !answered && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!req.destroyed) req.end();
    };
    req.write('{"name":"x","arguments":{"blob":"');
    pump();
  });
}

let server: TooldeckServer;

beforeAll(async () => {
  server = await startTooldeckServer();
});

afterAll(async () => {
  await server?.stop();
});

describe.runIf(process.platform === 'linux')('request bodies in browser mode', () => {
  it('a 100 MB body gets 413 and the server stays within a bounded amount of memory', { timeout: 60_000 }, async () => {
    const before = peakRss(server.process.pid!);
    const authenticated = await streamBody(server, 100 * 1024 * 1024, { Authorization: `Bearer ${server.token}` });
    const anonymous = await streamBody(server, 100 * 1024 * 1024, {});
    expect([413, 'reset']).toContain(authenticated.status);
    expect([401, 'reset']).toContain(anonymous.status);
    // At most the 8 MiB cap is buffered; allow for the runtime's own growth, far below 100 MB.
    expect(peakRss(server.process.pid!) - before).toBeLessThan(48 * 1024 * 1024);
  });
});
