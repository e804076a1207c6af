import type { HttpRoute } from '../platform/guardedHttpServer';
import { readBody, sendJson } from '../platform/guardedHttpServer';
import { MediationError, type Mediation } from './Mediation';
import { wireFormatFor } from './wireFormats';

/**
 * Model mediation's door, as Clawdapus's cllama serves it: `/v1/chat/completions` (OpenAI),
 * `/v1/messages` (Anthropic) and `/history/{agent}` (the agent's own mediated turns), routes
 * mounted on the gateway's port behind its guards — the caller is the agent its credential names.
 * Nothing here but the protocol: the turn is `Mediation`'s, the rights the agents domain's.
 */
export function mediationRoutes(mediation: Mediation, maxBodyBytes: number): HttpRoute[] {
  const turn = (path: '/v1/chat/completions' | '/v1/messages'): HttpRoute => ({
    path,
    methods: ['POST'],
    async handle({ req, res, caller }) {
      const body = await readBody(req, maxBodyBytes);
      if (!body) return sendJson(res, 413, { error: { message: `Request bodies are limited to ${maxBodyBytes} bytes.` } });
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        return sendJson(res, 400, { error: { message: 'The body is not JSON.' } });
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return sendJson(res, 400, { error: { message: 'Send the request as a JSON object in a POST.' } });
      try {
        await mediation.handle(caller, wireFormatFor(path)!, parsed as Record<string, unknown>, res);
      } catch (error) {
        if (res.headersSent) return void res.end();
        if (error instanceof MediationError) return sendJson(res, error.status, { error: { message: error.message } });
        throw error;
      }
    },
  });
  return [
    turn('/v1/chat/completions'),
    turn('/v1/messages'),
    {
      path: /^\/history\/([^/]+)$/,
      label: '/history/{agent}',
      handle({ res, params, caller }) {
        // An agent reads its own mediated turns only.
        if (params[0] !== caller) return sendJson(res, 403, { error: { message: 'An agent reads only its own history.' } });
        sendJson(res, 200, mediation.history(caller));
      },
    },
  ];
}
