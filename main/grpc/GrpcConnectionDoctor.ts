import { lookup } from 'node:dns/promises';
import * as http2 from 'node:http2';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { AppError, reasonOf } from '../../shared/errors';
import { parseGrpcAddress, type GrpcConnectStep } from '../../shared/grpc';
import type { ChannelSettings } from './GrpcChannel';

const DEFAULT_STEP_TIMEOUT_MS = 5_000;

/**
 * Names the step at which reaching a gRPC server fails — DNS, TCP, the TLS handshake or HTTP/2 —
 * by walking them one at a time with Node's own sockets (grpc-js folds them all into UNAVAILABLE).
 * Returns undefined when every step passes: the server is reachable and the failure is gRPC's.
 */
export async function diagnoseConnection(settings: ChannelSettings, stepTimeoutMs = DEFAULT_STEP_TIMEOUT_MS): Promise<AppError | undefined> {
  const target = parseGrpcAddress(settings.address);
  if (!target) return fail('dns', `"${settings.address}" is not host:port`);
  const { host, port } = target;

  let ip = host;
  if (!isIP(host)) {
    try {
      ip = (await withTimeout(lookup(host), stepTimeoutMs, 'DNS lookup')).address;
    } catch (error) {
      return fail('dns', `Cannot resolve ${host}: ${errorCode(error)}`);
    }
  }

  let socket: Socket;
  try {
    socket = await openTcp(ip, port, stepTimeoutMs);
  } catch (error) {
    return fail('tcp', `Cannot open a TCP connection to ${ip}:${port}: ${errorCode(error)}`);
  }

  let stream: Socket | TLSSocket = socket;
  if (settings.tls.mode !== 'plaintext') {
    try {
      stream = await handshake(socket, host, settings, stepTimeoutMs);
    } catch (error) {
      socket.destroy();
      return fail('tls', `The TLS handshake with ${settings.address} failed: ${reasonOf(error)}`);
    }
    if ((stream as TLSSocket).alpnProtocol !== 'h2') {
      stream.destroy();
      return fail('http2', `${settings.address} completed TLS but did not agree to HTTP/2 (ALPN offered h2, got ${(stream as TLSSocket).alpnProtocol || 'nothing'})`);
    }
  }

  const problem = await http2Settings(stream, settings, stepTimeoutMs);
  if (!problem) return undefined;
  if (problem.tlsAlert) return fail('tls', `${settings.address} ended the TLS session: ${problem.message}`);
  // TLS 1.3 servers check the client certificate after the handshake and then just hang up.
  if (problem.closed && settings.tls.mode === 'tls') {
    return fail('tls', `${settings.address} closed the connection right after the TLS handshake: it probably requires a client certificate (mTLS)`);
  }
  if (problem.closed && settings.tls.mode === 'mtls') {
    return fail('tls', `${settings.address} closed the connection right after the TLS handshake: it did not accept this client certificate`);
  }
  if (settings.tls.mode === 'plaintext' && (await speaksTls(ip, port, stepTimeoutMs))) {
    return fail('tls', `${settings.address} expects TLS, and this source dials in plaintext: add it with TLS`);
  }
  return fail('http2', `${settings.address} does not speak HTTP/2: ${problem.message}`);
}

function fail(step: GrpcConnectStep, message: string): AppError {
  return new AppError('ConnectionFailed', message, { step, retryable: step !== 'dns' && step !== 'tls' });
}

function errorCode(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return code ? `${code}${message && !message.includes(code) ? ` (${message})` : ''}` : message || String(error);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`${what} timed out after ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function openTcp(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host, port });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(Object.assign(new Error(`no answer in ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    });
    socket.once('connect', () => {
      socket.setTimeout(0);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

function handshake(socket: Socket, host: string, settings: ChannelSettings, timeoutMs: number): Promise<TLSSocket> {
  const { tls } = settings;
  const name = tls.serverName ?? host;
  return new Promise((resolve, reject) => {
    const secure = tlsConnect({
      socket,
      ALPNProtocols: ['h2'],
      ...(isIP(name) ? {} : { servername: name }),
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(tls.mode === 'mtls' && tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
      // The certificate must carry the name asked for (the override when one is set), as grpc-js checks it.
      checkServerIdentity: (_hostname, cert) => checkServerIdentity(name, cert),
    });
    const timer = setTimeout(() => {
      secure.destroy();
      reject(new Error(`no handshake in ${timeoutMs} ms`));
    }, timeoutMs);
    secure.once('secureConnect', () => {
      clearTimeout(timer);
      resolve(secure);
    });
    secure.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/**
 * Sends the HTTP/2 preface and waits for the server's SETTINGS. A TLS alert that arrives now (TLS 1.3
 * servers refuse a missing client certificate after the handshake) is reported as such.
 */
function http2Settings(stream: Socket | TLSSocket, settings: ChannelSettings, timeoutMs: number): Promise<{ message: string; tlsAlert: boolean; closed?: boolean } | undefined> {
  return new Promise((resolve) => {
    const scheme = settings.tls.mode === 'plaintext' ? 'http' : 'https';
    const session = http2.connect(`${scheme}://${settings.address}`, { createConnection: () => stream });
    let settled = false;
    const finish = (result: { message: string; tlsAlert: boolean; closed?: boolean } | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      stream.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ message: `no HTTP/2 SETTINGS within ${timeoutMs} ms`, tlsAlert: false }), timeoutMs);
    session.once('remoteSettings', () => finish(undefined));
    session.once('error', (error: NodeJS.ErrnoException) => finish({ message: reasonOf(error), tlsAlert: isTlsAlert(error) }));
    stream.once('error', (error: NodeJS.ErrnoException) => finish({ message: reasonOf(error), tlsAlert: isTlsAlert(error) }));
    session.once('close', () => finish({ message: 'the connection closed before the server sent its HTTP/2 SETTINGS', tlsAlert: false, closed: true }));
  });
}

function isTlsAlert(error: NodeJS.ErrnoException): boolean {
  return /alert|ERR_SSL|certificate/i.test(`${error.code ?? ''} ${error.message}`);
}

/** Whether the port answers a TLS ClientHello (so a plaintext dial failed for want of TLS). */
async function speaksTls(ip: string, port: number, timeoutMs: number): Promise<boolean> {
  let socket: Socket;
  try {
    socket = await openTcp(ip, port, timeoutMs);
  } catch {
    return false;
  }
  return new Promise((resolve) => {
    const secure = tlsConnect({ socket, rejectUnauthorized: false, ALPNProtocols: ['h2'] });
    const done = (value: boolean) => {
      clearTimeout(timer);
      secure.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    secure.once('secureConnect', () => done(true));
    secure.once('error', (error: NodeJS.ErrnoException) => done(isTlsAlert(error) && !/wrong version number|packet length too long/i.test(error.message)));
  });
}
