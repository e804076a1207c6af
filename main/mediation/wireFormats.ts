import type { ToolEntry } from '../../shared/registry';
import type { ProviderFormat } from './ModelProviders';

/** A tool call a model made, whatever the wire format. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** The call as the model wrote it, to put back into the conversation. */
  raw: unknown;
}

export interface RoundResult {
  id: string;
  text: string;
  ok: boolean;
}

type Body = Record<string, unknown> & { messages?: unknown[] };
type Json = Record<string, unknown>;

/** What differs between OpenAI's chat completions and Anthropic's messages, for the mediation loop. */
export interface WireFormat {
  readonly format: ProviderFormat;
  /** The upstream URL from the provider's base URL, as the official SDKs build it. */
  upstreamUrl(baseUrl: string): string;
  authHeaders(apiKey: string | undefined): Record<string, string>;
  toolDefinitions(managed: Map<string, ToolEntry>): unknown[];
  /** The runner's own tool names. */
  nativeToolNames(body: Body): string[];
  /** `tool_choice` naming a managed tool by its registry or Clawdapus name is rewritten to the name the model sees. */
  rewriteToolChoice(body: Body, presented: (name: string) => string | undefined): void;
  calls(response: Json): ModelToolCall[];
  /** Appends the assistant's turn (with only `kept` of its calls) and the results of those calls. */
  appendRound(body: Body, response: Json, kept: readonly ModelToolCall[], results: readonly RoundResult[]): void;
  withoutTools(body: Body): Body;
  /** Tokens of one answer, and its cost where the provider reports one (OpenRouter's `usage.cost`, in US dollars). */
  usage(response: Json): { prompt: number; completion: number; cost?: number };
  /** The terminal answer as the format's event stream (what a runner that asked for a stream reads). */
  streamEvents(response: Json): string[];
  keepAlive(text: string): string;
  errorEvent(message: string): string;
  /** An assistant message's visible text (no tool calls in it); undefined for any other message. */
  visibleAssistantText(message: unknown): string | undefined;
  /** The terminal answer's visible text; undefined when it calls tools. */
  answerText(response: Json): string | undefined;
}

const textOf = (content: unknown): string | undefined => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content as Json[];
  if (parts.some((part) => part.type !== 'text')) return undefined;
  return parts.map((part) => String(part.text ?? '')).join('');
};

function parseArguments(value: unknown): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  if (typeof value !== 'string' || value.trim() === '') return {};
  try {
    const parsed = JSON.parse(value) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed };
  } catch {
    // Arguments that are not JSON reach validation as they are, and fail it with a clear sentence.
    return { __unparsable_arguments: value };
  }
}

const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

export const openAiFormat: WireFormat = {
  format: 'openai',
  upstreamUrl: (baseUrl) => `${baseUrl}/chat/completions`,
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  toolDefinitions: (managed) => [...managed].map(([name, entry]) => ({ type: 'function', function: { name, ...(entry.description ? { description: entry.description } : {}), parameters: { type: 'object', ...entry.inputSchema } } })),
  nativeToolNames: (body) => ((body.tools as { function?: { name?: string } }[] | undefined) ?? []).map((tool) => tool.function?.name ?? '').filter(Boolean),
  rewriteToolChoice(body, presented) {
    const choice = body.tool_choice as { type?: string; function?: { name?: string } } | undefined;
    const name = choice?.function?.name;
    const shown = name ? presented(name) : undefined;
    if (shown) body.tool_choice = { ...choice, function: { ...choice!.function, name: shown } };
  },
  calls: (response) => {
    const message = ((response.choices as Json[] | undefined)?.[0]?.message ?? {}) as { tool_calls?: { id: string; function: { name: string; arguments: string } }[] };
    return (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: parseArguments(call.function.arguments), raw: call }));
  },
  appendRound(body, response, kept, results) {
    const message = ((response.choices as Json[])[0]!.message ?? {}) as Json;
    body.messages = [...(body.messages ?? []), { role: 'assistant', content: message.content ?? null, tool_calls: kept.map((call) => call.raw) }, ...results.map((result) => ({ role: 'tool', tool_call_id: result.id, content: result.text }))];
  },
  withoutTools: ({ tools: _tools, tool_choice: _choice, ...rest }) => rest,
  usage: (response) => {
    const usage = (response.usage ?? {}) as { prompt_tokens?: number; completion_tokens?: number; cost?: unknown };
    return { prompt: usage.prompt_tokens ?? 0, completion: usage.completion_tokens ?? 0, ...(typeof usage.cost === 'number' && Number.isFinite(usage.cost) ? { cost: usage.cost } : {}) };
  },
  streamEvents(response) {
    const choice = ((response.choices as Json[] | undefined)?.[0] ?? {}) as { message?: Json; finish_reason?: string };
    const base = { id: response.id ?? 'chatcmpl-tooldeck', object: 'chat.completion.chunk', created: response.created ?? Math.floor(Date.now() / 1000), model: response.model };
    const message = choice.message ?? {};
    const events = [sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: message.content ?? '' }, finish_reason: null }] })];
    if (Array.isArray(message.tool_calls)) {
      events.push(sse({ ...base, choices: [{ index: 0, delta: { tool_calls: (message.tool_calls as Json[]).map((call, index) => ({ index, ...call })) }, finish_reason: null }] }));
    }
    events.push(sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason ?? 'stop' }], ...(response.usage ? { usage: response.usage } : {}) }));
    events.push(sse('[DONE]'));
    return events;
  },
  keepAlive: (text) => `: ${text}\n\n`,
  errorEvent: (message) => sse({ error: { message } }),
  visibleAssistantText(message) {
    const m = message as Json | undefined;
    if (m?.role !== 'assistant' || (Array.isArray(m.tool_calls) && m.tool_calls.length > 0)) return undefined;
    return textOf(m.content);
  },
  answerText(response) {
    return openAiFormat.visibleAssistantText(((response.choices as Json[] | undefined)?.[0]?.message ?? undefined) as unknown);
  },
};

export const anthropicFormat: WireFormat = {
  format: 'anthropic',
  upstreamUrl: (baseUrl) => `${baseUrl}/v1/messages`,
  authHeaders: (apiKey) => ({ 'anthropic-version': '2023-06-01', ...(apiKey ? { 'x-api-key': apiKey } : {}) }),
  toolDefinitions: (managed) => [...managed].map(([name, entry]) => ({ name, ...(entry.description ? { description: entry.description } : {}), input_schema: { type: 'object', ...entry.inputSchema } })),
  nativeToolNames: (body) => ((body.tools as { name?: string }[] | undefined) ?? []).map((tool) => tool.name ?? '').filter(Boolean),
  rewriteToolChoice(body, presented) {
    const choice = body.tool_choice as { type?: string; name?: string } | undefined;
    const shown = choice?.type === 'tool' && choice.name ? presented(choice.name) : undefined;
    if (shown) body.tool_choice = { ...choice, name: shown };
  },
  calls: (response) =>
    ((response.content as Json[] | undefined) ?? [])
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({ id: String(block.id), name: String(block.name), arguments: parseArguments(block.input), raw: block })),
  appendRound(body, response, kept, results) {
    const text = ((response.content as Json[] | undefined) ?? []).filter((block) => block.type !== 'tool_use');
    body.messages = [
      ...(body.messages ?? []),
      { role: 'assistant', content: [...text, ...kept.map((call) => call.raw)] },
      { role: 'user', content: results.map((result) => ({ type: 'tool_result', tool_use_id: result.id, content: result.text, ...(result.ok ? {} : { is_error: true }) })) },
    ];
  },
  withoutTools: ({ tools: _tools, tool_choice: _choice, ...rest }) => rest,
  usage: (response) => {
    const usage = (response.usage ?? {}) as { input_tokens?: number; output_tokens?: number };
    return { prompt: usage.input_tokens ?? 0, completion: usage.output_tokens ?? 0 };
  },
  streamEvents(response) {
    const { content = [], ...message } = response as { content?: Json[] } & Json;
    const events = [sse({ type: 'message_start', message: { ...message, content: [], stop_reason: null } }, 'message_start')];
    content.forEach((block, index) => {
      if (block.type === 'text') {
        events.push(sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start'));
        events.push(sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } }, 'content_block_delta'));
      } else {
        events.push(sse({ type: 'content_block_start', index, content_block: { ...block, input: {} } }, 'content_block_start'));
        events.push(sse({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) } }, 'content_block_delta'));
      }
      events.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
    });
    events.push(sse({ type: 'message_delta', delta: { stop_reason: message.stop_reason ?? 'end_turn', stop_sequence: null }, usage: { output_tokens: (message.usage as Json | undefined)?.output_tokens ?? 0 } }, 'message_delta'));
    events.push(sse({ type: 'message_stop' }, 'message_stop'));
    return events;
  },
  keepAlive: (text) => `: ${text}\n\n`,
  errorEvent: (message) => sse({ type: 'error', error: { type: 'api_error', message } }, 'error'),
  visibleAssistantText(message) {
    const m = message as Json | undefined;
    return m?.role === 'assistant' ? textOf(m.content) : undefined;
  },
  answerText(response) {
    return textOf(response.content);
  },
};

export const wireFormatFor = (path: string): WireFormat | undefined => (path === '/v1/chat/completions' ? openAiFormat : path === '/v1/messages' ? anthropicFormat : undefined);
