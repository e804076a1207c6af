import { Anchor, Blockquote, Code, Divider, List, Text, Title, type TitleOrder } from '@mantine/core';
import type { ReactNode } from 'react';

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'rule' }
  | { kind: 'quote'; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'paragraph'; text: string };

const UNORDERED = /^\s*[-*+]\s+(.*)$/;
const ORDERED = /^\s*\d+[.)]\s+(.*)$/;

function parseBlocks(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (/^\s*```/.test(line)) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !/^\s*```/.test(lines[i]!)) body.push(lines[i++]!);
      i++;
      blocks.push({ kind: 'code', text: body.join('\n') });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: heading[1]!.length, text: heading[2]! });
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      blocks.push({ kind: 'rule' });
      i++;
      continue;
    }
    if (/^\s*>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i]!)) body.push(lines[i++]!.replace(/^\s*>\s?/, ''));
      blocks.push({ kind: 'quote', text: body.join('\n') });
      continue;
    }
    const listPattern = UNORDERED.test(line) ? UNORDERED : ORDERED.test(line) ? ORDERED : undefined;
    if (listPattern) {
      const items: string[] = [];
      while (i < lines.length && listPattern.test(lines[i]!)) items.push(listPattern.exec(lines[i++]!)![1]!);
      blocks.push({ kind: 'list', ordered: listPattern === ORDERED, items });
      continue;
    }
    if (!line.trim()) {
      i++;
      continue;
    }
    const body: string[] = [];
    while (i < lines.length && lines[i]!.trim() && !/^\s*(```|#{1,6}\s|>)/.test(lines[i]!) && !UNORDERED.test(lines[i]!) && !ORDERED.test(lines[i]!)) body.push(lines[i++]!);
    blocks.push({ kind: 'paragraph', text: body.join('\n') });
  }
  return blocks;
}

const INLINE = /(`+)([\s\S]+?)\1|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|~~([\s\S]+?)~~|\*([^*\s][\s\S]*?)\*|\b_([^_\s][\s\S]*?)_\b|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

/** Only links that leave the app for an ordinary page or mail: no javascript:, data: or relative URLs. */
function safeHref(href: string): string | undefined {
  try {
    const url = new URL(href);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function inline(text: string, keyPrefix: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index;
    if (index > last) out.push(text.slice(last, index));
    const key = `${keyPrefix}.${n++}`;
    const [, ticks, code, bold1, bold2, strike, em1, em2, linkText, href] = match;
    if (ticks) out.push(<Code key={key}>{code}</Code>);
    else if (bold1 ?? bold2) out.push(<strong key={key}>{inline((bold1 ?? bold2)!, key)}</strong>);
    else if (strike) out.push(<s key={key}>{inline(strike, key)}</s>);
    else if (em1 ?? em2) out.push(<em key={key}>{inline((em1 ?? em2)!, key)}</em>);
    else if (linkText && href) {
      const safe = safeHref(href);
      out.push(
        safe ? (
          <Anchor key={key} href={safe} target="_blank" rel="noreferrer noopener">
            {inline(linkText, key)}
          </Anchor>
        ) : (
          <span key={key}>{inline(linkText, key)}</span>
        ),
      );
    }
    last = index + match[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/**
 * A small, safe Markdown subset (headings, paragraphs, lists, quotes, code, emphasis, links) built as
 * React elements: nothing from the text is ever parsed as HTML, and only http(s)/mailto links are live.
 */
export function MarkdownText({ text }: { text: string }) {
  const blocks = parseBlocks(text);
  return (
    <div>
      {blocks.map((block, i) => {
        const key = String(i);
        switch (block.kind) {
          case 'heading':
            return (
              <Title key={key} order={Math.min(block.level + 2, 6) as TitleOrder} mt={i ? 'sm' : 0} mb={4}>
                {inline(block.text, key)}
              </Title>
            );
          case 'code':
            return (
              <Code key={key} block my="xs" style={{ whiteSpace: 'pre-wrap' }}>
                {block.text}
              </Code>
            );
          case 'rule':
            return <Divider key={key} my="sm" />;
          case 'quote':
            return (
              <Blockquote key={key} my="xs" p="xs" pl="md">
                <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                  {inline(block.text, key)}
                </Text>
              </Blockquote>
            );
          case 'list':
            return (
              <List key={key} type={block.ordered ? 'ordered' : 'unordered'} size="sm" my={4} withPadding>
                {block.items.map((item, j) => (
                  <List.Item key={j}>{inline(item, `${key}.${j}`)}</List.Item>
                ))}
              </List>
            );
          case 'paragraph':
            return (
              <Text key={key} size="sm" my={4} style={{ whiteSpace: 'pre-wrap' }}>
                {inline(block.text, key)}
              </Text>
            );
        }
      })}
    </div>
  );
}
