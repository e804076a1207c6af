import { describe, expect, it } from 'vitest';
import { classifyError } from './classifyError';

describe('classifyError', () => {
  it("says why fetch failed: the cause Node's fetch keeps, with its code", () => {
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const error = classifyError(new TypeError('fetch failed', { cause: reset }));
    expect(error.code).toBe('ExecutionFailed');
    expect(error.message).toBe('fetch failed: other side closed (UND_ERR_SOCKET)');
  });

  it('keeps a message that already says its cause, and one with no cause', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(classifyError(new TypeError('fetch failed', { cause: refused })).message).toBe('fetch failed: connect ECONNREFUSED 127.0.0.1:9');
    expect(classifyError(new Error('boom')).message).toBe('boom');
    expect(classifyError(new Error('boom', { cause: 'text' })).message).toBe('boom');
  });
});
