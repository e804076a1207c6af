import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EvalReport } from '../../shared/evals';
import { junitReport, xmlText } from './evalReporters';
import { parseXml } from './testing/parseXml';

const reportWith = (text: string): EvalReport => ({
  suite: text,
  models: [text],
  threshold: 1,
  executed: true,
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 1,
  accuracy: 0,
  cases: [{ name: text, model: text, pass_rate: 0, passed: false, runs: [{ iteration: 1, passed: false, failures: [text], tool_calls: [], tokens: { prompt: 0, completion: 0 }, latency_ms: 1, rounds: 1, answer: text }] }],
});

describe('JUnit XML', () => {
  it('is well-formed for any text a model or a suite can hold, and reads back as that text with unrepresentable characters spelled \\uXXXX', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const elements = parseXml(junitReport(reportWith(text)));
        expect(elements.find((element) => element.name === 'testcase')!.attributes.name).toBe(readBack(`${text} [${text}]`));
        expect(elements.find((element) => element.name === 'failure')!.text).toContain(`run 1 answered: ${readBack(text)}`);
      }),
      { numRuns: 300 },
    );
  });

  it('escapes markup and keeps tab, line feed and carriage return', () => {
    expect(xmlText(`<a href="x">&'\t\n\r\u0007\u0085\uFFFF`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;\t\n&#13;\\u0007\\u0085\\uffff');
  });
});

/** What a parser reads back: the characters XML cannot carry as their `\uXXXX` spelling (attribute values also normalize tab and line feed to spaces). */
function readBack(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    out += (code < 0x20 && char !== '\t' && char !== '\n' && char !== '\r') || (code >= 0x7f && code <= 0x9f) || (code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return out;
}
