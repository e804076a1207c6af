import type { ContentBlock, ToolResult } from '../../shared/registry';
import { hasLargeString, jsonByteLength } from './jsonByteLength';
import { jsonStringPrefix } from './jsonStringPrefix';

/** Clawdapus budget default: max_tool_result_bytes = 16,384. */
export const DEFAULT_MAX_TOOL_RESULT_BYTES = 16_384;

export interface CappedResult {
  result: ToolResult;
  truncated: boolean;
  /** UTF-8 bytes of the result as the tool returned it, serialized as JSON. */
  originalBytes: number;
}

/**
 * Caps a result's JSON serialization at `maxBytes` UTF-8 bytes (bytes, not UTF-16 units) and marks
 * the capped result `truncated: true`. A result that fits is returned untouched. Otherwise, in order:
 *
 * - content parts are kept whole while they fit;
 * - the first text part (or embedded text resource) that does not fit is cut on a code point
 *   boundary to fill what is left, and every part after it is dropped — the text stays a prefix;
 * - a binary part (image, audio, blob resource) that does not fit cannot be cut usefully, so it is
 *   replaced by a short text note naming its type and size, and later parts still get their turn;
 * - structuredContent is kept only whole, when it fits in what is left; otherwise a note says it
 *   was omitted (a cut JSON value would no longer match the tool's output schema).
 *
 * The `truncated` flag and notes count against the limit too. Limits below the size of an empty
 * capped result (about 40 bytes) cannot be met; the empty capped result is returned then.
 */
export function capToolResult(result: ToolResult, maxBytes: number = DEFAULT_MAX_TOOL_RESULT_BYTES): CappedResult {
  // A large text is measured, not serialized again (memory stays near the result's own size).
  const large = hasLargeString(result.content);
  const jsonBytes = large ? jsonByteLength : plainJsonBytes;
  const originalBytes = jsonBytes(result);
  if (originalBytes <= maxBytes) return { result, truncated: false, originalBytes };

  const content: ContentBlock[] = [];
  const head: ToolResult = { content, ...(result.isError !== undefined ? { isError: result.isError } : {}), truncated: true };
  let budget = maxBytes - jsonBytes(head);
  const separator = () => (content.length > 0 ? 1 : 0);
  const tryPush = (part: ContentBlock): boolean => {
    const cost = jsonBytes(part) + separator();
    if (cost > budget) return false;
    content.push(part);
    budget -= cost;
    return true;
  };

  for (const part of result.content) {
    if (tryPush(part)) continue;
    const cut = cutTextPart(part, budget - separator(), jsonBytes);
    if (cut) {
      tryPush(cut);
      break;
    }
    if (isBinary(part)) tryPush({ type: 'text', text: omissionNote(part) });
    else if (part.type === 'text' || part.type === 'resource') break;
  }

  if (result.structuredContent !== undefined) {
    const cost = Buffer.byteLength(',"structuredContent":', 'utf8') + jsonBytes(result.structuredContent);
    if (cost <= budget) head.structuredContent = result.structuredContent;
    else tryPush({ type: 'text', text: `[structuredContent omitted: ${jsonBytes(result.structuredContent)} bytes]` });
  }
  return { result: head, truncated: true, originalBytes };
}

function plainJsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** The part with its text cut to fit `budget` bytes, or undefined when it has no text or not even an empty text fits. */
function cutTextPart(part: ContentBlock, budget: number, jsonBytes: (value: unknown) => number): ContentBlock | undefined {
  if (part.type === 'text') {
    const room = budget - jsonBytes({ ...part, text: '' });
    return room >= 0 ? { ...part, text: jsonStringPrefix(part.text, room) } : undefined;
  }
  if (part.type === 'resource' && typeof part.resource.text === 'string') {
    const resource = part.resource;
    const room = budget - jsonBytes({ ...part, resource: { ...resource, text: '' } });
    return room >= 0 ? { ...part, resource: { ...resource, text: jsonStringPrefix(part.resource.text, room) } } : undefined;
  }
  return undefined;
}

function isBinary(part: ContentBlock): boolean {
  return part.type === 'image' || part.type === 'audio' || (part.type === 'resource' && typeof part.resource.blob === 'string');
}

function omissionNote(part: ContentBlock): string {
  const base64 = part.type === 'resource' ? String(part.resource.blob) : part.type === 'image' || part.type === 'audio' ? part.data : '';
  const mimeType = part.type === 'resource' ? (part.resource.mimeType ?? 'blob') : part.type === 'image' || part.type === 'audio' ? part.mimeType : part.type;
  return `[${part.type} ${mimeType} omitted: ${Math.floor((base64.length * 3) / 4)} bytes]`;
}
