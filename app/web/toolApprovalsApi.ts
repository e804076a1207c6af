import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { ApprovalInbox } from '../../main/approvals/ApprovalHolder';
import type { Logger } from '../../main/platform/Logger';
import { readBoundedStream } from '../../main/platform/readBounded';
import { isAppError, reasonOf } from '../../shared/errors';

export const TOOL_APPROVALS_PATH = '/v1/tool-approvals';

/** A decision is a name and a sentence: a body far larger than that is refused before it is parsed. */
const MAX_DECISION_BODY_BYTES = 64 * 1024;

/** Orloj's decision body; like Orloj, `reason` is read as the comment when there is no comment. */
const DecisionBody = z.object({
  decided_by: z.string({ error: 'decided_by (who decides) is required, as a string' }),
  comment: z.string({ error: 'comment must be a string' }).optional(),
  reason: z.string({ error: 'reason must be a string' }).optional(),
});

const STATUS_OF: Record<string, number> = { NotFound: 404, AlreadyExists: 409, InvalidInput: 400 };

/**
 * Orloj's ToolApproval API on the console's port, over the data dir's approvals:
 * `GET /v1/tool-approvals` (`{items}`), `GET /v1/tool-approvals/{name}`, and
 * `POST /v1/tool-approvals/{name}/approve|deny` with `{"decided_by", "comment"?}` — 200 with the
 * approval, 409 when it is no longer Pending, 404 for an unknown name, 400 for a bad body. The
 * caller has passed the console's guards (Host, Origin, Sec-Fetch-Site, body cap, the operator's
 * token) before it gets here.
 */
export async function serveToolApprovals(req: IncomingMessage, res: ServerResponse, path: string, book: ApprovalInbox, logger: Logger): Promise<void> {
  try {
    const rest = path.slice(TOOL_APPROVALS_PATH.length).replace(/\/+$/, '');
    const segments = rest === '' ? [] : rest.slice(1).split('/');
    if (segments.length === 0) {
      if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
      return sendJson(res, 200, { items: await book.list() });
    }
    const name = decodeSegment(segments[0]!);
    if (name === undefined || segments.length > 2) return sendJson(res, 404, { error: 'Not found' });
    if (segments.length === 1) {
      if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
      return sendJson(res, 200, await book.get(name));
    }
    const verdict = segments[1];
    if (verdict !== 'approve' && verdict !== 'deny') return sendJson(res, 404, { error: 'Not found' });
    if (req.method !== 'POST') return methodNotAllowed(res, 'POST');
    const body = await readDecision(req);
    if (typeof body === 'string') return sendJson(res, body.startsWith('Request bodies') ? 413 : 400, { error: body });
    const comment = body.comment !== undefined && body.comment.trim() !== '' ? body.comment : body.reason;
    return sendJson(res, 200, await book.decide(name, verdict, body.decided_by, comment));
  } catch (error) {
    const status = isAppError(error) ? (STATUS_OF[error.code] ?? 500) : 500;
    if (status === 500) logger.error('tool approval request failed', { path, error: reasonOf(error) });
    return sendJson(res, status, { error: status === 500 ? 'The approval could not be read or decided; the console log says why.' : reasonOf(error) });
  }
}

/** The body as a decision, or the sentence saying why it is not one. */
async function readDecision(req: IncomingMessage): Promise<z.infer<typeof DecisionBody> | string> {
  let bytes: Buffer;
  try {
    bytes = await readBoundedStream(req, 'The request body', { maxBytes: MAX_DECISION_BODY_BYTES, what: 'a decision' });
  } catch {
    return `Request bodies of a decision are limited to ${MAX_DECISION_BODY_BYTES} bytes`;
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'The body must be JSON: {"decided_by": "…", "comment": "…"}';
  }
  const parsed = DecisionBody.safeParse(json);
  if (!parsed.success) return typeof json === 'object' && json !== null && !Array.isArray(json) ? parsed.error.issues[0]!.message : 'The body must be a JSON object: {"decided_by": "…", "comment": "…"}';
  return parsed.data;
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function methodNotAllowed(res: ServerResponse, allowed: string) {
  res.setHeader('Allow', allowed);
  sendJson(res, 405, { error: `Method not allowed: use ${allowed}` });
}

function sendJson(res: ServerResponse, status: number, value: unknown) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  // An error answer may come before the body was read: the connection is not reused for what follows.
  if (status >= 400) res.setHeader('Connection', 'close');
  res.end(JSON.stringify(value));
}
