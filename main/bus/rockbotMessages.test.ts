import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { checkAmqpUrl, maskAmqpUrl } from './amqpUrl';
import { DEFAULT_TIMEOUT_MS, invokeResponse, MAX_TIMEOUT_MS, requestTimeoutMs, toolErrorAsAppError, toolErrorOf, toolResultOf } from './rockbotMessages';

describe('RockBot bus messages', () => {
  it('honours the timeout header up to 120 s, 60 s when absent or not a positive number', () => {
    expect(requestTimeoutMs(undefined)).toBe(DEFAULT_TIMEOUT_MS);
    expect(requestTimeoutMs('5000')).toBe(5000);
    expect(requestTimeoutMs('999999')).toBe(MAX_TIMEOUT_MS);
    for (const bad of ['', 'soon', '-5', '0', 'NaN', 'Infinity']) expect(requestTimeoutMs(bad)).toBe(DEFAULT_TIMEOUT_MS);
  });

  it('builds the ToolInvokeResponse as RockBot’s bridge does: text blocks joined by newlines, every block kept with nulls', () => {
    const response = invokeResponse(
      { toolCallId: 'c', toolName: 't' },
      {
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: 'AAA', mimeType: 'image/png' },
          { type: 'text', text: 'two' },
          { type: 'resource', resource: { uri: 'file:///x', text: 'body', mimeType: 'text/plain' } },
          { type: 'resource_link', uri: 'https://example.com/a', name: 'a' },
        ],
        isError: true,
      } as never,
    );
    expect(response).toEqual({
      toolCallId: 'c',
      toolName: 't',
      content: 'one\ntwo',
      isError: true,
      contentBlocks: [
        { type: 'text', text: 'one', data: null, mimeType: null, uri: null },
        { type: 'image', text: null, data: 'AAA', mimeType: 'image/png', uri: null },
        { type: 'text', text: 'two', data: null, mimeType: null, uri: null },
        { type: 'resource', text: 'body', data: null, mimeType: 'text/plain', uri: 'file:///x' },
        { type: 'resource', text: 'a', data: null, mimeType: null, uri: 'https://example.com/a' },
      ],
    });
  });

  it('maps Tooldeck’s error codes onto RockBot’s four', () => {
    const codeOf = (error: AppError) => toolErrorOf({ toolCallId: 'c', toolName: 't' }, error.toShape()).code;
    expect(codeOf(new AppError('ToolNotFound', 'x'))).toBe('tool_not_found');
    expect(codeOf(new AppError('InvalidArguments', 'x'))).toBe('invalid_arguments');
    expect(codeOf(new AppError('Timeout', 'x'))).toBe('timeout');
    expect(codeOf(new AppError('PolicyDenied', 'x'))).toBe('execution_failed');
    expect(toolErrorOf({ toolCallId: 'c', toolName: 't' }, new AppError('ConnectionFailed', 'x').toShape())).toMatchObject({ code: 'execution_failed', isRetryable: true });
  });

  it('masks the password (and query) of an AMQP URL, and refuses what is not one without repeating it', () => {
    expect(maskAmqpUrl('amqp://user:pa55@host:5672/vhost')).toBe('amqp://user:***@host:5672/vhost');
    expect(maskAmqpUrl('amqps://host?cacertfile=/x&password=p')).toBe('amqps://host?***');
    expect(maskAmqpUrl('amqp://user:pa%40ss@host')).not.toContain('pa');
    expect(maskAmqpUrl('garbage with secret')).toBe('***');
    expect(() => checkAmqpUrl('http://user:pa55@host')).toThrow(/not an AMQP URL/);
    expect(() => checkAmqpUrl('http://user:pa55@host')).not.toThrow(/pa55/);
  });

  it('reads another bridge’s ToolInvokeResponse back as a tool result: its blocks, else its content text', () => {
    const blocks = [
      { type: 'text', text: 'one', data: null, mimeType: null, uri: null },
      { type: 'image', text: null, data: 'AAA', mimeType: 'image/png', uri: null },
      { type: 'resource', text: 'body', data: null, mimeType: 'text/plain', uri: 'file:///a' },
      { type: 'resource', text: null, data: null, mimeType: null, uri: 'file:///b' },
      { type: 'video', text: 'unknown kinds are dropped' },
      'not a block',
    ];
    expect(toolResultOf({ toolCallId: 'c', toolName: 't', content: 'one', isError: false, contentBlocks: blocks })).toEqual({
      content: [
        { type: 'text', text: 'one' },
        { type: 'image', data: 'AAA', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///a', text: 'body', mimeType: 'text/plain' } },
        { type: 'resource_link', uri: 'file:///b', name: 'file:///b' },
      ],
    });
    // An older bridge sends no blocks: its content text is the result.
    expect(toolResultOf({ content: 'plain', isError: true })).toEqual({ content: [{ type: 'text', text: 'plain' }], isError: true });
    expect(toolResultOf('not an object')).toBeUndefined();
  });

  it('reads another bridge’s ToolError back as the AppError a call ends with; tool_not_found stays itself', () => {
    expect(toolErrorAsAppError({ code: 'tool_not_found', message: 'x' }, 'mcp-bridge.a')).toBe('tool_not_found');
    const timeout = toolErrorAsAppError({ code: 'timeout', message: 'slow', isRetryable: true }, 'mcp-bridge.a') as AppError;
    expect(timeout).toMatchObject({ code: 'Timeout', retryable: true, message: 'mcp-bridge.a answered timeout: slow' });
    expect(toolErrorAsAppError({ code: 'invalid_arguments', message: 'bad', isRetryable: false }, undefined)).toMatchObject({ code: 'InvalidArguments', retryable: false });
    expect(toolErrorAsAppError({ code: 'toString', message: 'odd code' }, 'b')).toMatchObject({ code: 'ExecutionFailed', retryable: false });
    expect(toolErrorAsAppError({ code: 'execution_failed', message: 'x'.repeat(10_000) }, 'b')!.toString().length).toBeLessThan(4200);
    expect(toolErrorAsAppError(null, 'b')).toBeUndefined();
  });
});
