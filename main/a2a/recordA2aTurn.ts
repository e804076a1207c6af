import { randomUUID } from 'node:crypto';
import type { A2aOutgoingMessage } from '../../shared/a2a';
import type { AppErrorShape } from '../../shared/errors';
import type { InvocationRecord } from '../../shared/invocation';
import type { SecretRedactor } from '../platform/SecretRedactor';
import { recordedArguments } from '../registry/recordedArguments';

const PREVIEW_CHARS = 200;

/**
 * An A2A conversation turn as an invocation record (`a2a:<agent>`, tool SendMessage or
 * SendStreamingMessage), so talking to an agent lands in history and metrics like a tool call.
 * With the console's `redactor`, the preview is cut where it splits none of its secrets (the
 * recorder masks whole values only).
 */
export function a2aTurnRecord(
  agent: string,
  method: 'SendMessage' | 'SendStreamingMessage',
  message: A2aOutgoingMessage,
  startedAt: number,
  outcome: { state?: string; text?: string; error?: AppErrorShape; canceled?: boolean; traceId?: string },
  redactor?: Pick<SecretRedactor, 'safeEnd'>,
): InvocationRecord {
  const args = recordedArguments(typeof message === 'string' ? { text: message } : (message as Record<string, unknown>));
  const failed = outcome.error || outcome.state === 'FAILED' || outcome.state === 'REJECTED';
  const status: InvocationRecord['status'] = outcome.canceled ? 'canceled' : outcome.error?.code === 'Timeout' ? 'timeout' : failed ? 'error' : 'ok';
  const preview = outcome.error ? outcome.error.message : `${outcome.state ?? ''} ${outcome.text ?? ''}`.trim();
  return {
    id: randomUUID(),
    startedAt,
    sourceKind: 'a2a',
    sourceName: agent,
    tool: method,
    argumentsJson: args.json,
    status,
    ...(outcome.error ? { errorCode: outcome.error.code, errorMessage: outcome.error.message } : {}),
    ...(!outcome.error && failed ? { isError: true } : {}),
    latencyMs: Date.now() - startedAt,
    requestBytes: args.requestBytes,
    responseBytes: Buffer.byteLength(outcome.text ?? ''),
    resultPreview: preview.slice(0, redactor ? redactor.safeEnd(preview, PREVIEW_CHARS) : PREVIEW_CHARS),
    truncated: false,
    ...(outcome.traceId ? { traceId: outcome.traceId } : {}),
    // The operator talking to an agent: a turn's way in is A2A itself, from the console or the CLI.
    via: 'a2a',
  };
}
