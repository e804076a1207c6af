import { randomUUID } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';

/** What a peer demands of its callers; the card declares the matching securitySchemes. */
export interface PeerAuthOptions {
  bearerToken?: string;
  apiKey?: { in: 'header' | 'query'; name: string; value: string };
  /** Serves `/oauth/token` (client credentials) and accepts only the tokens it issued. */
  oauthClient?: { clientId: string; clientSecret: string };
}

/**
 * Mounts the token endpoint and returns the middleware guarding the A2A endpoints. Any one declared
 * scheme satisfied lets the call through, as the card's alternatives say.
 */
export function installPeerAuth(app: Express, auth: PeerAuthOptions | undefined) {
  const issued = new Set<string>();
  if (auth?.oauthClient) {
    const client = auth.oauthClient;
    app.post('/oauth/token', express.urlencoded({ extended: false }), (req: Request, res: Response) => {
      const basic = /^Basic (.+)$/i.exec(req.header('authorization') ?? '');
      const [id, secret] = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':') : [req.body?.client_id, req.body?.client_secret];
      if (req.body?.grant_type !== 'client_credentials' || id !== client.clientId || secret !== client.clientSecret) {
        res.status(401).json({ error: 'invalid_client' });
        return;
      }
      const token = `peer-${randomUUID()}`;
      issued.add(token);
      res.json({ access_token: token, token_type: 'Bearer', expires_in: 3600 });
    });
  }
  return (req: Request, res: Response, next: NextFunction) => {
    if (!auth || (!auth.bearerToken && !auth.apiKey && !auth.oauthClient)) return next();
    const bearer = /^Bearer (.+)$/i.exec(req.header('authorization') ?? '')?.[1];
    if (auth.bearerToken && bearer === auth.bearerToken) return next();
    if (auth.oauthClient && bearer && issued.has(bearer)) return next();
    if (auth.apiKey) {
      const presented = auth.apiKey.in === 'header' ? req.header(auth.apiKey.name) : req.query[auth.apiKey.name];
      if (presented === auth.apiKey.value) return next();
    }
    res.status(401).set('WWW-Authenticate', 'Bearer').json({ error: 'unauthorized' });
  };
}
