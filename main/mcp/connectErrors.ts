import { AppError } from '../../shared/errors';
import type { ConnectStep, McpServerConfig } from '../../shared/mcp';
import { OAuthFlowError } from './oauth/OAuthFlowError';

/** Facts gathered while connecting that make a failure explainable. */
export interface ConnectClues {
  stderrTail: string[];
  protocolErrors: string[];
  exitCode?: number | null;
  timedOut?: boolean;
}

function causeChain(error: unknown): Array<Error & { code?: string; status?: number }> {
  const chain: Array<Error & { code?: string; status?: number }> = [];
  let current = error as (Error & { cause?: unknown }) | undefined;
  while (current && typeof current === 'object' && chain.length < 6) {
    chain.push(current as Error & { code?: string });
    current = current.cause as typeof current;
  }
  return chain;
}

function httpStatus(error: unknown): number | undefined {
  for (const e of causeChain(error)) {
    const status = e.status ?? (e as { code?: unknown }).code;
    if (typeof status === 'number' && status >= 400) return status;
    const match = /\b(?:HTTP|status(?: code)?)\s*(\d{3})\b/i.exec(e.message ?? '');
    if (match) return Number(match[1]);
  }
  return undefined;
}

function withClues(message: string, clues: ConnectClues): string {
  const parts = [message];
  if (clues.protocolErrors.length) parts.push(`Server output that is not JSON-RPC: ${clues.protocolErrors.slice(-2).join(' | ')}`);
  if (clues.stderrTail.length) parts.push(`stderr: ${clues.stderrTail.slice(-5).join(' ⏎ ')}`);
  return parts.join('. ');
}

/**
 * Turns whatever the SDK threw while connecting into an AppError that names the failed step and
 * keeps the underlying message: the connection doctor's verdict.
 */
export function classifyConnectError(error: unknown, config: McpServerConfig, clues: ConnectClues): AppError {
  const chain = causeChain(error);
  const codes = chain.map((e) => e.code).filter(Boolean) as string[];
  const base = chain[0]?.message ?? String(error);
  const fail = (step: ConnectStep, message: string) => new AppError('ConnectionFailed', withClues(message, clues), { step, cause: error, retryable: step !== 'spawn' && step !== 'auth' });

  if (config.transport === 'stdio') {
    if (codes.includes('ENOENT') || /spawn .* ENOENT/.test(base)) return fail('spawn', `Cannot start "${config.command}": command not found (ENOENT)`);
    if (codes.includes('EACCES')) return fail('spawn', `Cannot start "${config.command}": permission denied (EACCES)`);
    if (codes.includes('ENOTDIR') || (config.cwd && /chdir|cwd/i.test(base))) return fail('spawn', `Cannot start "${config.command}" in ${config.cwd}: ${base}`);
  } else {
    // MCP authorization already names its failed step and the server's words: keep them.
    const oauth = chain.find((e): e is OAuthFlowError => e instanceof OAuthFlowError);
    if (oauth) return new AppError('ConnectionFailed', oauth.message, { step: 'auth', cause: oauth, retryable: false });
    const status = httpStatus(error);
    if (status === 401 || status === 403 || /unauthori[sz]ed/i.test(base)) return fail('auth', `The server refused the credentials (HTTP ${status ?? 401}): ${base}`);
    const network = codes.find((c) => ['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET'].includes(c));
    if (network) return fail('transport', `Cannot reach ${config.url}: ${network}`);
    if (/fetch failed/i.test(base)) return fail('transport', `Cannot reach ${config.url}: ${chain[1]?.message ?? base}`);
    if (status === 404 || status === 405) return fail('transport', `No MCP endpoint at ${config.url} (HTTP ${status})`);
    if (status) return fail('transport', `HTTP ${status} from ${config.url}: ${base}`);
  }
  if (clues.timedOut || /timed? ?out/i.test(base)) return fail('negotiation', `The server did not answer the protocol handshake in time`);
  if (clues.exitCode !== undefined && clues.exitCode !== null) return fail('negotiation', `The server exited with code ${clues.exitCode} during the handshake`);
  if (/closed/i.test(base)) return fail('negotiation', `The connection closed during the handshake: ${base}`);
  return fail('negotiation', `Protocol negotiation failed: ${base}`);
}
