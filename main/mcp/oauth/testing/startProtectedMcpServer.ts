import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { FakeOAuthServerProvider } from './FakeOAuthServerProvider';

export interface ProtectedServerOptions {
  /** scopes_supported of the authorization server and the protected resource metadata. */
  scopesSupported?: string[];
  /** Scopes every MCP request needs; named in the 401's WWW-Authenticate when set. */
  requiredScopes?: string[];
  /** Scopes a call of the `write_note` tool needs on top (403 insufficient_scope otherwise). */
  writeScopes?: string[];
  /** The issuer the authorization server's metadata claims, when it should differ from where it is reached. */
  metadataHost?: 'localhost';
}

export interface ProtectedServer {
  /** The MCP endpoint (Streamable HTTP). */
  url: string;
  /** The same server over the legacy HTTP+SSE transport (its own protected resource). */
  sseUrl: string;
  /** The authorization server as the protected resource metadata names it. */
  authorizationServer: string;
  provider: FakeOAuthServerProvider;
  close(): Promise<void>;
}

async function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(s)));
  });
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * An OAuth-protected MCP server on 127.0.0.1, built from the SDK 1.x server parts: an
 * authorization server (`mcpAuthRouter`, with FakeOAuthServerProvider deciding) on one port, and on
 * another the resource server: protected resource metadata (RFC 9728) and a stateless Streamable
 * HTTP endpoint behind `requireBearerAuth`, with `whoami` and `write_note` tools.
 */
export async function startProtectedMcpServer(options: ProtectedServerOptions = {}): Promise<ProtectedServer> {
  const provider = new FakeOAuthServerProvider();
  const asApp = express();
  const rsApp = express();
  const as = await listen(asApp);
  const rs = await listen(rsApp);

  const advertised = `${as.base}/`;
  const issuerUrl = new URL(options.metadataHost ? advertised.replace('127.0.0.1', options.metadataHost) : advertised);
  asApp.use(
    mcpAuthRouter({
      provider,
      issuerUrl,
      scopesSupported: options.scopesSupported,
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
    }),
  );

  const resource = `${rs.base}/mcp`;
  const metadataUrl = `${rs.base}/.well-known/oauth-protected-resource/mcp`;
  const sseMetadataUrl = `${rs.base}/.well-known/oauth-protected-resource/sse`;
  for (const path of ['mcp', 'sse']) {
    rsApp.get(`/.well-known/oauth-protected-resource/${path}`, (_req, res) => {
      res.json({ resource: `${rs.base}/${path}`, authorization_servers: [advertised], ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}) });
    });
  }
  rsApp.use(express.json());
  const stepUp = (req: Request, res: Response, next: NextFunction) => {
    const body = req.body as { method?: string; params?: { name?: string } } | undefined;
    const needed = [...(options.requiredScopes ?? []), ...(options.writeScopes ?? [])];
    const granted = req.auth?.scopes ?? [];
    if (body?.method === 'tools/call' && body.params?.name === 'write_note' && options.writeScopes && !needed.every((s) => granted.includes(s))) {
      res
        .status(403)
        .set('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${needed.join(' ')}", resource_metadata="${metadataUrl}", error_description="Writing needs more scope"`)
        .json({ error: 'insufficient_scope', error_description: 'Writing needs more scope' });
      return;
    }
    next();
  };
  const notesServer = () => {
    const server = new McpServer({ name: 'protected-notes', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Who the access token says you are' }, async (extra) => ({
      content: [{ type: 'text', text: JSON.stringify({ clientId: extra.authInfo?.clientId, scopes: extra.authInfo?.scopes }) }],
    }));
    server.registerTool('write_note', { description: 'Writes a note (needs the write scope)', inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text: `saved: ${text}` }],
    }));
    return server;
  };
  rsApp.post('/mcp', requireBearerAuth({ verifier: provider, requiredScopes: options.requiredScopes, resourceMetadataUrl: metadataUrl }), stepUp, async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await notesServer().connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  rsApp.all('/mcp', (_req, res) => void res.status(405).set('Allow', 'POST').end());

  const sseAuth = requireBearerAuth({ verifier: provider, requiredScopes: options.requiredScopes, resourceMetadataUrl: sseMetadataUrl });
  const sseSessions = new Map<string, SSEServerTransport>();
  rsApp.get('/sse', sseAuth, async (_req, res) => {
    const transport = new SSEServerTransport('/messages', res);
    sseSessions.set(transport.sessionId, transport);
    res.on('close', () => sseSessions.delete(transport.sessionId));
    await notesServer().connect(transport);
  });
  rsApp.post('/messages', sseAuth, async (req, res) => {
    const transport = sseSessions.get(String(req.query.sessionId));
    if (!transport) return void res.status(404).end('Unknown session');
    await transport.handlePostMessage(req, res, req.body);
  });

  return {
    url: resource,
    sseUrl: `${rs.base}/sse`,
    authorizationServer: advertised,
    provider,
    close: async () => {
      for (const { server } of [as, rs]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
