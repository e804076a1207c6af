import { createServer, type Http2Server, type ServerHttp2Session } from 'node:http2';

export interface RecordingGrpcPeer {
  address: string;
  /** The `authorization` metadata of every call received, in order. */
  readonly authorizations: string[];
  /** How many calls arrived. */
  readonly calls: number;
  stop(): Promise<void>;
}

/**
 * A hand-written hostile gRPC peer: an HTTP/2 (h2c) server that answers every call UNAUTHENTICATED
 * and records the `authorization` metadata each call carried — the endpoint a source is moved to.
 */
export async function startRecordingGrpcPeer(): Promise<RecordingGrpcPeer> {
  const seen = { authorizations: [] as string[], calls: 0 };
  const server: Http2Server = createServer();
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    seen.calls += 1;
    if (typeof headers.authorization === 'string') seen.authorizations.push(headers.authorization);
    stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'recorded' }, { endStream: true });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    get authorizations() {
      return seen.authorizations;
    },
    get calls() {
      return seen.calls;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
      }),
  };
}

