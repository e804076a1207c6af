import { describe, expect, it } from 'vitest';
import { parseInline, type InlineNode, type ScanStats } from './markdownInline';

const text = (value: string): InlineNode => ({ kind: 'text', text: value });

/** The regular expression the scanner replaced, kept here to compare against on short texts. */
const FORMER_INLINE = /(`+)([\s\S]+?)\1|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|~~([\s\S]+?)~~|\*([^*\s][\s\S]*?)\*|\b_([^_\s][\s\S]*?)_\b|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

function formerParse(source: string): InlineNode[] {
  const out: InlineNode[] = [];
  let last = 0;
  for (const match of source.matchAll(FORMER_INLINE)) {
    if (match.index > last) out.push(text(source.slice(last, match.index)));
    const [, ticks, code, bold1, bold2, strike, em1, em2, linkText, href] = match;
    if (ticks) out.push({ kind: 'code', text: code! });
    else if (bold1 ?? bold2) out.push({ kind: 'strong', children: formerParse((bold1 ?? bold2)!) });
    else if (strike) out.push({ kind: 'strike', children: formerParse(strike) });
    else if (em1 ?? em2) out.push({ kind: 'em', children: formerParse((em1 ?? em2)!) });
    else if (linkText && href) out.push({ kind: 'link', href, children: formerParse(linkText) });
    last = match.index + match[0].length;
  }
  if (last < source.length) out.push(text(source.slice(last)));
  return out;
}

describe('parseInline', () => {
  it('reads code, strong, em, strike and links, nested, as the Markdown subset always has', () => {
    expect(parseInline('a `x*y*` b')).toEqual([text('a '), { kind: 'code', text: 'x*y*' }, text(' b')]);
    expect(parseInline('**bold _and em_** ~~gone~~ *star* __under__')).toEqual([
      { kind: 'strong', children: [text('bold '), { kind: 'em', children: [text('and em')] }] },
      text(' '),
      { kind: 'strike', children: [text('gone')] },
      text(' '),
      { kind: 'em', children: [text('star')] },
      text(' '),
      { kind: 'strong', children: [text('under')] },
    ]);
    expect(parseInline('see [the **docs**](https://example.com/a_b "Docs") now')).toEqual([
      text('see '),
      { kind: 'link', href: 'https://example.com/a_b', children: [text('the '), { kind: 'strong', children: [text('docs')] }] },
      text(' now'),
    ]);
    // Not delimiters: a `_` inside a word, a `*` before a space, an unclosed run, a link without (href).
    expect(parseInline('snake_case_name and 2 * 3 and **open and [x] (y)')).toEqual([text('snake_case_name and 2 * 3 and **open and [x] (y)')]);
  });

  it('reads every short text as the former regular expression did, backtick runs longer than one aside', () => {
    const pieces = ['*', '_', '~', '[', ']', '(', ')', ' ', '"', 'a', 'b', '\n', '**', '__', '~~', '`'];
    let seed = 1;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 20_000; round++) {
      let source = '';
      for (let length = 1 + Math.floor(random() * 14); length > 0; length--) source += pieces[Math.floor(random() * pieces.length)];
      // Runs of two or more backticks now close only on a run of their own length (CommonMark).
      if (source.includes('``')) continue;
      expect(parseInline(source), JSON.stringify(source)).toEqual(formerParse(source));
    }
  });

  it('closes a backtick run only with a run of the same length, and leaves an unclosed run as text', () => {
    expect(parseInline('``a ` b`` c')).toEqual([{ kind: 'code', text: 'a ` b' }, text(' c')]);
    expect(parseInline('```x`` y')).toEqual([text('```x`` y')]);
    const ticks = '`'.repeat(40_000);
    expect(parseInline(ticks)).toEqual([text(ticks)]);
    expect(parseInline(`${ticks}a${ticks}`)).toEqual([{ kind: 'code', text: 'a' }]);
  });

  /** Steps for a hostile text of n and of 2n units: the work must double, not quadruple. */
  const growth = (unit: string, n: number) => {
    const steps = (count: number) => {
      const stats: ScanStats = { steps: 0 };
      parseInline(unit.repeat(count), stats);
      return stats.steps;
    };
    return steps(2 * n) / steps(n);
  };

  it('does work linear in the text for inputs that made the regular expression quadratic', () => {
    for (const unit of ['`', '` ``', '**a', '__a', '~~a', '*a', ' _a', '[a](', '[a](b "', '[[]]((', '**_~~[`']) {
      expect(growth(unit, 10_000), JSON.stringify(unit)).toBeLessThan(2.1);
    }
  });
});
