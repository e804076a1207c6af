/**
 * Makes what a reader cannot see in a tool's text visible: Unicode tag characters (which spell out
 * hidden ASCII), bidi controls, zero-width and other invisible characters, control characters, lone
 * surrogates, and letters that impersonate Latin ones (another script inside a Latin word,
 * full-width or mathematical letters). The linter, the definition diff, the CLI and the UI all read
 * characters through this one table, so what the linter flags is what the diff shows.
 */

export type HiddenKind = 'tag' | 'bidi' | 'zero-width' | 'invisible' | 'control' | 'ill-formed' | 'confusable';

export interface HiddenCharacter {
  kind: HiddenKind;
  /** `U+200B`, or the range of a run (`U+E0069…U+E0065`). */
  codePoint: string;
  /** What it is: `ZERO WIDTH SPACE`, `RIGHT-TO-LEFT OVERRIDE`, or for a run of tag characters the text they spell. */
  name: string;
  /** Tag characters: the ASCII text the run encodes. Confusables: the Latin letter it looks like, when known. */
  decoded?: string;
}

export interface RevealedPart {
  text: string;
  hidden?: HiddenCharacter;
}

const NAMED: Record<number, [Exclude<HiddenKind, 'confusable' | 'ill-formed'>, string]> = {
  0x00ad: ['invisible', 'SOFT HYPHEN'],
  0x034f: ['invisible', 'COMBINING GRAPHEME JOINER'],
  0x061c: ['bidi', 'ARABIC LETTER MARK'],
  0x115f: ['invisible', 'HANGUL CHOSEONG FILLER'],
  0x1160: ['invisible', 'HANGUL JUNGSEONG FILLER'],
  0x17b4: ['invisible', 'KHMER VOWEL INHERENT AQ'],
  0x17b5: ['invisible', 'KHMER VOWEL INHERENT AA'],
  0x180e: ['zero-width', 'MONGOLIAN VOWEL SEPARATOR'],
  0x200b: ['zero-width', 'ZERO WIDTH SPACE'],
  0x200c: ['zero-width', 'ZERO WIDTH NON-JOINER'],
  0x200d: ['zero-width', 'ZERO WIDTH JOINER'],
  0x200e: ['bidi', 'LEFT-TO-RIGHT MARK'],
  0x200f: ['bidi', 'RIGHT-TO-LEFT MARK'],
  0x202a: ['bidi', 'LEFT-TO-RIGHT EMBEDDING'],
  0x202b: ['bidi', 'RIGHT-TO-LEFT EMBEDDING'],
  0x202c: ['bidi', 'POP DIRECTIONAL FORMATTING'],
  0x202d: ['bidi', 'LEFT-TO-RIGHT OVERRIDE'],
  0x202e: ['bidi', 'RIGHT-TO-LEFT OVERRIDE'],
  0x2060: ['zero-width', 'WORD JOINER'],
  0x2061: ['invisible', 'FUNCTION APPLICATION'],
  0x2062: ['invisible', 'INVISIBLE TIMES'],
  0x2063: ['invisible', 'INVISIBLE SEPARATOR'],
  0x2064: ['invisible', 'INVISIBLE PLUS'],
  0x2066: ['bidi', 'LEFT-TO-RIGHT ISOLATE'],
  0x2067: ['bidi', 'RIGHT-TO-LEFT ISOLATE'],
  0x2068: ['bidi', 'FIRST STRONG ISOLATE'],
  0x2069: ['bidi', 'POP DIRECTIONAL ISOLATE'],
  0x206a: ['invisible', 'INHIBIT SYMMETRIC SWAPPING'],
  0x206b: ['invisible', 'ACTIVATE SYMMETRIC SWAPPING'],
  0x206c: ['invisible', 'INHIBIT ARABIC FORM SHAPING'],
  0x206d: ['invisible', 'ACTIVATE ARABIC FORM SHAPING'],
  0x206e: ['invisible', 'NATIONAL DIGIT SHAPES'],
  0x206f: ['invisible', 'NOMINAL DIGIT SHAPES'],
  0x3164: ['invisible', 'HANGUL FILLER'],
  0xfeff: ['zero-width', 'ZERO WIDTH NO-BREAK SPACE (BOM)'],
  0xffa0: ['invisible', 'HALFWIDTH HANGUL FILLER'],
  0xfff9: ['invisible', 'INTERLINEAR ANNOTATION ANCHOR'],
  0xfffa: ['invisible', 'INTERLINEAR ANNOTATION SEPARATOR'],
  0xfffb: ['invisible', 'INTERLINEAR ANNOTATION TERMINATOR'],
};

const CONTROL_NAMES: Record<number, string> = { 0x00: 'NULL', 0x07: 'BELL', 0x08: 'BACKSPACE', 0x0b: 'LINE TABULATION', 0x0c: 'FORM FEED', 0x1b: 'ESCAPE (terminal control sequence)', 0x7f: 'DELETE', 0x85: 'NEXT LINE', 0x9b: 'CONTROL SEQUENCE INTRODUCER' };

const EMOJI = /\p{Extended_Pictographic}/u;
const PLAIN_ASCII = /^[\x20-\x7e\t\n\r]*$/;

export function codePointLabel(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** What a single code point is, when a reader would not see it as written; undefined for ordinary characters. */
export function classifyCodePoint(codePoint: number): { kind: Exclude<HiddenKind, 'confusable' | 'ill-formed'>; name: string } | undefined {
  const named = NAMED[codePoint];
  if (named) return { kind: named[0], name: named[1] };
  if (codePoint >= 0xe0000 && codePoint <= 0xe007f) return { kind: 'tag', name: tagName(codePoint) };
  // Variation selectors 17–256: invisible, and able to carry a byte each ("ASCII smuggling").
  if (codePoint >= 0xe0100 && codePoint <= 0xe01ef) return { kind: 'invisible', name: `VARIATION SELECTOR-${codePoint - 0xe0100 + 17}` };
  if (codePoint >= 0xfe00 && codePoint <= 0xfe0f) return { kind: 'invisible', name: `VARIATION SELECTOR-${codePoint - 0xfe00 + 1}` };
  if ((codePoint < 0x20 && codePoint !== 0x09 && codePoint !== 0x0a && codePoint !== 0x0d) || (codePoint >= 0x7f && codePoint <= 0x9f)) {
    return { kind: 'control', name: CONTROL_NAMES[codePoint] ?? 'CONTROL CHARACTER' };
  }
  if ((codePoint >= 0xe000 && codePoint <= 0xf8ff) || codePoint >= 0xf0000) return { kind: 'invisible', name: 'PRIVATE USE CHARACTER' };
  return undefined;
}

function tagName(codePoint: number): string {
  if (codePoint === 0xe0001) return 'LANGUAGE TAG';
  if (codePoint === 0xe007f) return 'CANCEL TAG';
  const ascii = codePoint - 0xe0000;
  if (ascii >= 0x20 && ascii <= 0x7e) return `TAG ${JSON.stringify(String.fromCharCode(ascii))}`;
  return 'TAG CHARACTER';
}

/**
 * Characters a reader sees that are not what they look like, and characters a reader does not see,
 * each as its own part; ordinary text runs stay whole. Joining every part's `text` gives the input back.
 */
export function revealText(text: string): RevealedPart[] {
  // Most tool text is printable ASCII, where nothing can hide or pose as something else.
  if (PLAIN_ASCII.test(text)) return text ? [{ text }] : [];
  const parts: RevealedPart[] = [];
  let plain = '';
  const flush = () => {
    if (plain) parts.push({ text: plain });
    plain = '';
  };
  const confusable = confusablePositions(text);
  const chars = [...text];
  let offset = 0;
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    const codePoint = char.codePointAt(0)!;
    const at = offset;
    offset += char.length;
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) {
      flush();
      parts.push({ text: char, hidden: { kind: 'ill-formed', codePoint: codePointLabel(codePoint), name: 'LONE SURROGATE' } });
      continue;
    }
    const kind = classifyCodePoint(codePoint);
    if (kind?.kind === 'tag') {
      // A run of tag characters is one hidden message: show what it spells.
      let run = char;
      let last = codePoint;
      while (i + 1 < chars.length) {
        const next = chars[i + 1]!.codePointAt(0)!;
        if (next < 0xe0000 || next > 0xe007f) break;
        run += chars[++i]!;
        offset += chars[i]!.length;
        last = next;
      }
      const decoded = [...run].map((c) => c.codePointAt(0)! - 0xe0000).filter((ascii) => ascii >= 0x20 && ascii <= 0x7e).map((ascii) => String.fromCharCode(ascii)).join('');
      flush();
      parts.push({
        text: run,
        hidden: { kind: 'tag', codePoint: run === char ? codePointLabel(codePoint) : `${codePointLabel(codePoint)}…${codePointLabel(last)}`, name: decoded ? `hidden text ${JSON.stringify(decoded)}` : kind.name, decoded },
      });
      continue;
    }
    if (kind && !isEmojiPresentation(codePoint, chars, i)) {
      flush();
      parts.push({ text: char, hidden: { kind: kind.kind, codePoint: codePointLabel(codePoint), name: kind.name } });
      continue;
    }
    const looksLike = confusable.get(at);
    if (looksLike !== undefined) {
      flush();
      parts.push({ text: char, hidden: { kind: 'confusable', codePoint: codePointLabel(codePoint), name: looksLike ? `looks like "${looksLike}"` : 'letter from another script inside a word', ...(looksLike ? { decoded: looksLike } : {}) } });
      continue;
    }
    plain += char;
  }
  flush();
  return parts;
}

/** Emoji use ZWJ between pictographs and VS16 after one; those render as one visible emoji. */
function isEmojiPresentation(codePoint: number, chars: string[], i: number): boolean {
  const before = chars[i - 1] ?? '';
  if (codePoint === 0xfe0f || codePoint === 0xfe0e) return EMOJI.test(before) || /^[#*0-9]$/.test(before);
  if (codePoint === 0x200d) return EMOJI.test(before) && EMOJI.test(chars[i + 1] ?? '');
  return false;
}

/** The text with every hidden character spelled out, e.g. `pay⟦U+200B ZERO WIDTH SPACE⟧pal`: for terminals and logs. */
export function revealedString(text: string): string {
  return revealText(text)
    .map((part) => (part.hidden ? `⟦${part.hidden.codePoint} ${part.hidden.name}⟧` : part.text))
    .join('');
}

/** Whether the text holds anything `revealText` would mark. */
export function hasHiddenCharacters(text: string): boolean {
  return revealText(text).some((part) => part.hidden);
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const LATIN = /\p{Script=Latin}/u;
const OTHER_SCRIPTS: Array<[RegExp, string]> = [
  [/\p{Script=Cyrillic}/u, 'Cyrillic'],
  [/\p{Script=Greek}/u, 'Greek'],
  [/\p{Script=Armenian}/u, 'Armenian'],
  [/\p{Script=Cherokee}/u, 'Cherokee'],
  [/\p{Script=Coptic}/u, 'Coptic'],
];

/** Letters of Cyrillic, Greek and the like that look like Latin letters (a subset of Unicode's confusables). */
const LATIN_LOOKALIKES: Record<string, string> = {
  а: 'a', в: 'B', е: 'e', к: 'k', м: 'M', н: 'H', о: 'o', р: 'p', с: 'c', т: 'T', у: 'y', х: 'x', ѕ: 's', і: 'i', ј: 'j', ԁ: 'd', ԛ: 'q', ԝ: 'w', һ: 'h', ӏ: 'l',
  А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', У: 'Y', Х: 'X', Ѕ: 'S', І: 'I', Ј: 'J',
  α: 'a', ο: 'o', ρ: 'p', ν: 'v', ι: 'i', κ: 'k', τ: 't', υ: 'u', χ: 'x',
  Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X',
};

/**
 * Offsets (UTF-16) of letters that impersonate others: in a word written mostly in Latin letters,
 * letters of another script; and letters whose compatibility form is ASCII (full-width `ａ`,
 * mathematical `𝐚`). The value is the ASCII letter it looks like, or '' when unknown.
 */
function confusablePositions(text: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    if (PLAIN_ASCII.test(word)) continue;
    const chars = [...word];
    const latin = chars.filter((c) => LATIN.test(c)).length;
    let offset = match.index;
    for (const char of chars) {
      const folded = char.normalize('NFKC');
      if (folded !== char && /^[\x21-\x7e]+$/.test(folded) && /\p{L}|\p{N}/u.test(char)) found.set(offset, folded);
      else if (latin > 0 && !LATIN.test(char) && OTHER_SCRIPTS.some(([script]) => script.test(char))) found.set(offset, LATIN_LOOKALIKES[char] ?? '');
      offset += char.length;
    }
  }
  return found;
}
