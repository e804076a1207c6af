/**
 * The inline part of MarkdownText's Markdown subset, read by one left-to-right scan whose work grows
 * linearly with the text. Text comes from servers (tool and agent descriptions, results), and the
 * regular expression this replaces retried its alternatives from every position: 20,000 backticks
 * took 200 ms and each doubling four times as long.
 *
 * What it reads: `code` (a run of backticks closed by a run of the same length; an unclosed run is
 * text), **strong** and __strong__, ~~strike~~, *em* and _em_ (a `_` only at a word's edge), and
 * [text](href "title"). The first delimiter that has a closer wins, as the regular expression did,
 * and each kind's content is read again for the others. A kind never contains itself (its content
 * ends at its first closer), so content is read again at most once per kind: at most seven passes.
 */

export type InlineNode =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'strong' | 'em' | 'strike'; children: InlineNode[] }
  | { kind: 'link'; href: string; children: InlineNode[] };

/** Counts the scanner's steps, so a test can see the work grow linearly without timing anything. */
export interface ScanStats {
  steps: number;
}

const NONE = -1;
const isWordChar = (char: string | undefined) => char !== undefined && /[A-Za-z0-9_]/.test(char);
const isSpace = (char: string | undefined) => char !== undefined && /\s/.test(char);

/**
 * For each position, the first position at or after it where `at` holds (NONE if none): built once
 * per text, right to left, so every search for a closer is one lookup.
 */
class NextIndex {
  private readonly tables = new Map<string, Int32Array>();

  constructor(
    private readonly text: string,
    private readonly stats: ScanStats,
  ) {}

  find(name: string, at: (index: number) => boolean, from: number): number {
    let table = this.tables.get(name);
    if (!table) {
      table = new Int32Array(this.text.length + 1).fill(NONE);
      for (let index = this.text.length - 1; index >= 0; index--) {
        table[index] = at(index) ? index : table[index + 1]!;
        this.stats.steps++;
      }
      this.tables.set(name, table);
    }
    return from <= this.text.length ? table[from]! : NONE;
  }
}

/** The inline nodes of `text`. */
export function parseInline(text: string, stats: ScanStats = { steps: 0 }): InlineNode[] {
  const next = new NextIndex(text, stats);
  const pair = (char: string) => (index: number) => text[index] === char && text[index + 1] === char;
  const nextPair = (char: string, from: number) => next.find(`${char}${char}`, pair(char), from);
  const nextChar = (char: string, from: number) => next.find(char, (index) => text[index] === char, from);
  // A closing `_` is one a word does not go on after.
  const nextUnderscoreCloser = (from: number) => next.find('_\\b', (index) => text[index] === '_' && !isWordChar(text[index + 1]), from);
  const nextHrefEnd = (from: number) => next.find('href-end', (index) => text[index] === ')' || isSpace(text[index]), from);
  const nextNonSpace = (from: number) => next.find('non-space', (index) => !isSpace(text[index]), from);

  // Backtick runs (found at the first backtick), and for each length the runs of that length in
  // order: the closer of a run is the next run of the same length, found by a cursor per length
  // that only moves forward.
  let runs: Array<{ start: number; length: number }> | undefined;
  const runsByLength = new Map<number, number[]>();
  const runAt = new Map<number, number>();
  const cursors = new Map<number, number>();
  const runStartingAt = (index: number): number | undefined => {
    if (!runs) {
      runs = backtickRuns(text, stats);
      runs.forEach((run, at) => {
        const list = runsByLength.get(run.length) ?? [];
        list.push(at);
        runsByLength.set(run.length, list);
        runAt.set(run.start, at);
      });
    }
    return runAt.get(index);
  };
  const closingRun = (index: number): number => {
    const { length } = runs![index]!;
    const list = runsByLength.get(length)!;
    let cursor = cursors.get(length) ?? 0;
    while (cursor < list.length && list[cursor]! <= index) {
      cursor++;
      stats.steps++;
    }
    cursors.set(length, cursor);
    return cursor < list.length ? list[cursor]! : NONE;
  };

  const out: InlineNode[] = [];
  let textStart = 0;
  const emit = (node: InlineNode, at: number) => {
    if (at > textStart) out.push({ kind: 'text', text: text.slice(textStart, at) });
    out.push(node);
  };
  const span = (kind: 'strong' | 'em' | 'strike', start: number, contentStart: number, contentEnd: number, end: number) => {
    emit({ kind, children: parseInline(text.slice(contentStart, contentEnd), stats) }, start);
    textStart = end;
    return end;
  };

  let index = 0;
  while (index < text.length) {
    stats.steps++;
    const char = text[index]!;
    const run = char === '`' ? runStartingAt(index) : undefined;
    if (run !== undefined && runs) {
      const closer = closingRun(run);
      const end = runs[run]!.start + runs[run]!.length;
      if (closer === NONE) {
        index = end;
        continue;
      }
      emit({ kind: 'code', text: text.slice(end, runs[closer]!.start) }, index);
      index = textStart = runs[closer]!.start + runs[closer]!.length;
      continue;
    }
    if ((char === '*' || char === '_' || char === '~') && text[index + 1] === char) {
      const close = nextPair(char, index + 3);
      if (close !== NONE) {
        index = span(char === '~' ? 'strike' : 'strong', index, index + 2, close, close + 2);
        continue;
      }
    }
    if (char === '*' && text[index + 1] !== undefined && text[index + 1] !== '*' && !isSpace(text[index + 1])) {
      const close = nextChar('*', index + 2);
      if (close !== NONE) {
        index = span('em', index, index + 1, close, close + 1);
        continue;
      }
    }
    if (char === '_' && !isWordChar(text[index - 1]) && text[index + 1] !== undefined && text[index + 1] !== '_' && !isSpace(text[index + 1])) {
      const close = nextUnderscoreCloser(index + 2);
      if (close !== NONE) {
        index = span('em', index, index + 1, close, close + 1);
        continue;
      }
    }
    if (char === '[') {
      const link = linkAt(index);
      if (link) {
        emit({ kind: 'link', href: link.href, children: parseInline(text.slice(index + 1, link.textEnd), stats) }, index);
        index = textStart = link.end;
        continue;
      }
    }
    index++;
  }
  if (textStart < text.length) out.push({ kind: 'text', text: text.slice(textStart) });
  return out;

  /** `[text](href)` or `[text](href "title")` at `start`, each part found by one lookup. */
  function linkAt(start: number): { textEnd: number; href: string; end: number } | undefined {
    const textEnd = nextChar(']', start + 1);
    if (textEnd === NONE || textEnd === start + 1 || text[textEnd + 1] !== '(') return undefined;
    const hrefStart = textEnd + 2;
    const hrefEnd = nextHrefEnd(hrefStart);
    if (hrefEnd === NONE || hrefEnd === hrefStart) return undefined;
    const href = text.slice(hrefStart, hrefEnd);
    if (text[hrefEnd] === ')') return { textEnd, href, end: hrefEnd + 1 };
    const quote = nextNonSpace(hrefEnd);
    if (quote === NONE || text[quote] !== '"') return undefined;
    const closingQuote = nextChar('"', quote + 1);
    if (closingQuote === NONE || text[closingQuote + 1] !== ')') return undefined;
    return { textEnd, href, end: closingQuote + 2 };
  }
}

function backtickRuns(text: string, stats: ScanStats): Array<{ start: number; length: number }> {
  const runs: Array<{ start: number; length: number }> = [];
  for (let index = 0; index < text.length; index++) {
    stats.steps++;
    if (text[index] !== '`') continue;
    const start = index;
    while (text[index + 1] === '`') {
      index++;
      stats.steps++;
    }
    runs.push({ start, length: index - start + 1 });
  }
  return runs;
}
