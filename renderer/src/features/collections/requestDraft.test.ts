import { describe, expect, it } from 'vitest';
import { Assertion } from '../../../../shared/collections';
import { assertionFromDraft, draftFromAssertion, EMPTY_ASSERTION, requestFromDraft, draftFromRequest } from './requestDraft';

describe('assertion drafts', () => {
  it('turns each kind into a valid assertion object', () => {
    const built = [
      assertionFromDraft({ ...EMPTY_ASSERTION, kind: 'status', status: 'error', code: 'Timeout' }),
      assertionFromDraft({ ...EMPTY_ASSERTION, kind: 'path', path: '$.structuredContent.temperature', operator: 'equals', value: '36' }),
      assertionFromDraft({ ...EMPTY_ASSERTION, kind: 'path', path: 'text', operator: 'contains', value: 'Echo' }),
      assertionFromDraft({ ...EMPTY_ASSERTION, kind: 'path', path: 'text', operator: 'matches', value: '^Echo: .+$' }),
      assertionFromDraft({ ...EMPTY_ASSERTION, kind: 'path', path: '$.content', operator: 'type', type: 'array' }),
      assertionFromDraft({ ...EMPTY_ASSERTION, kind: 'schema', schema: '{"type":"object","required":["id"]}', of: 'structuredContent' }),
      assertionFromDraft({ ...EMPTY_ASSERTION, kind: 'latency', latencyMs: '250' }),
    ];
    expect(built.map((b) => (b.ok ? b.value : b.message))).toEqual([
      { status: 'error', code: 'Timeout' },
      { path: '$.structuredContent.temperature', equals: 36 },
      { path: 'text', contains: 'Echo' },
      { path: 'text', matches: '^Echo: .+$' },
      { path: '$.content', type: 'array' },
      { schema: { type: 'object', required: ['id'] }, of: 'structuredContent' },
      { latencyBelowMs: 250 },
    ]);
    for (const b of built) expect(b.ok && Assertion.safeParse(b.value).success).toBe(true);
  });

  it('says what to fix instead of producing an invalid assertion', () => {
    const message = (draft: Parameters<typeof assertionFromDraft>[0]) => {
      const checked = assertionFromDraft(draft);
      return checked.ok ? undefined : checked.message;
    };
    expect(message({ ...EMPTY_ASSERTION, kind: 'path', path: 'structuredContent.x' })).toMatch(/starts with `\$`/);
    expect(message({ ...EMPTY_ASSERTION, kind: 'path', operator: 'matches', value: '(' })).toMatch(/regular expression/);
    expect(message({ ...EMPTY_ASSERTION, kind: 'path', operator: 'matches', value: 'a(?=b)' })).toMatch(/^The pattern \/a\(\?=b\)\/ uses a construct \(a backreference or lookaround\)/);
    expect(message({ ...EMPTY_ASSERTION, kind: 'schema', schema: '[1]' })).toMatch(/object/);
    expect(message({ ...EMPTY_ASSERTION, kind: 'latency', latencyMs: '-5' })).toMatch(/positive/);
  });

  it('reads saved assertions back into the editor unchanged', () => {
    const saved: Assertion[] = [{ status: 'isError' }, { path: '$.a', equals: 'x' }, { path: '$.a', equals: '36' }, { path: '$.b', exists: true }, { schema: { type: 'string' } }, { latencyBelowMs: 99 }];
    for (const a of saved) {
      const back = assertionFromDraft(draftFromAssertion(a));
      expect(back.ok && back.value).toEqual(a);
    }
  });
});

describe('request drafts', () => {
  it('keeps placeholders, timeouts and captures and drops empty capture rows', () => {
    const draft = draftFromRequest({ name: 'login', target: 'mcp:auth', tool: 'login', arguments: { user: '{{user}}' }, timeoutMs: 5000, assertions: [], capture: { token: '$.structuredContent.token' } });
    const checked = requestFromDraft({ ...draft, captures: [...draft.captures, { variable: '', path: '' }] });
    expect(checked.ok && checked.value).toEqual({ name: 'login', target: 'mcp:auth', tool: 'login', arguments: { user: '{{user}}' }, timeoutMs: 5000, assertions: [], capture: { token: '$.structuredContent.token' } });
  });

  it('rejects arguments that are not a JSON object and targets that are not mcp:/a2a:', () => {
    const draft = draftFromRequest({ name: 'x', target: 'mcp:a', tool: 't', arguments: {}, assertions: [], capture: {} });
    expect(requestFromDraft({ ...draft, arguments: '[1,' })).toEqual({ ok: false, message: 'Arguments: not valid JSON' });
    expect(requestFromDraft({ ...draft, target: 'http:x' })).toMatchObject({ ok: false, message: expect.stringMatching(/^target: /) });
  });
});
