import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ensurePythonPeers } from '../python/pythonPeers';

export interface GrpcPeer {
  port: number;
  address: string;
  stop(): Promise<void>;
}

export interface PeerTls {
  cert: string;
  key: string;
  /** Require client certificates signed by this CA (mTLS). */
  clientCa?: string;
}

/** The tools.v1 ToolServer written for the tests (tools_v1_server_for_tests.py). */
export function startToolsV1Server(options: { token?: string; tls?: PeerTls } = {}): Promise<GrpcPeer> {
  return launch('tools_v1_server_for_tests.py', [...(options.token ? ['--token', options.token] : []), ...tlsArgs(options.tls)]);
}

/** grpcio + grpcio-health-checking + grpcio-reflection, with the explorer test service (reflection_server.py). */
export function startReflectionServer(options: { reflection?: boolean; tls?: PeerTls } = {}): Promise<GrpcPeer> {
  return launch('reflection_server.py', [...(options.reflection === false ? ['--no-reflection'] : []), ...tlsArgs(options.tls)]);
}

function tlsArgs(tls: PeerTls | undefined): string[] {
  if (!tls) return [];
  return ['--cert', tls.cert, '--key', tls.key, ...(tls.clientCa ? ['--client-ca', tls.clientCa] : [])];
}

/** Each peer prints `LISTENING {"port": N}` once bound on 127.0.0.1 and exits when its stdin closes. */
async function launch(script: string, args: string[]): Promise<GrpcPeer> {
  const python = join(ensurePythonPeers(), 'python');
  const child = spawn(python, [join(import.meta.dirname, script), ...args], { cwd: import.meta.dirname, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 60 s: ${stderr}`)), 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('LISTENING ')) return;
      clearTimeout(timer);
      resolve((JSON.parse(line.slice('LISTENING '.length)) as { port: number }).port);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}: ${stderr}`));
    });
  });
  return {
    port,
    address: `127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.stdin!.end();
      }),
  };
}

export interface TestCertificates {
  dir: string;
  /** File paths. */
  files: { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string; otherCa: string };
  /** The same as PEM text. */
  pem: { ca: string; clientCert: string; clientKey: string; otherCa: string };
}

/**
 * A private CA, a server certificate for 127.0.0.1 and localhost, a client certificate, and an
 * unrelated CA (to see a server refused), made with the openssl command for this test run.
 */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'tooldeck-grpc-certs-'));
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => {
    const run = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${run.stderr || run.error?.message}`);
  };
  const ca = (name: string, subject: string) => {
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path(`${name}.key`), '-out', path(`${name}.pem`), '-days', '2', '-subj', subject);
  };
  const leaf = (name: string, subject: string, extensions: string) => {
    writeFileSync(path(`${name}.ext`), extensions);
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', path(`${name}.key`), '-out', path(`${name}.csr`), '-subj', subject);
    openssl('x509', '-req', '-in', path(`${name}.csr`), '-CA', path('ca.pem'), '-CAkey', path('ca.key'), '-CAcreateserial', '-out', path(`${name}.pem`), '-days', '2', '-extfile', path(`${name}.ext`));
  };
  ca('ca', '/CN=Tooldeck test CA');
  ca('other-ca', '/CN=Another CA');
  leaf('server', '/CN=localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  leaf('client', '/CN=tooldeck-client', 'extendedKeyUsage=clientAuth\n');
  const files = { ca: path('ca.pem'), serverCert: path('server.pem'), serverKey: path('server.key'), clientCert: path('client.pem'), clientKey: path('client.key'), otherCa: path('other-ca.pem') };
  const read = (file: string) => readFileSync(file, 'utf8');
  return { dir, files, pem: { ca: read(files.ca), clientCert: read(files.clientCert), clientKey: read(files.clientKey), otherCa: read(files.otherCa) } };
}
