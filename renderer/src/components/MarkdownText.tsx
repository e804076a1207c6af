import { Anchor, Blockquote, Code, Divider, List, Text, Title, type TitleOrder } from '@mantine/core';
import type { ReactNode } from 'react';
import { parseInline, type InlineNode } from './markdownInline';

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'rule' }
  | { kind: 'quote'; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'paragraph'; text: string };

const UNORDERED = /^\s*[-*+]\s+(.*)$/;
const ORDERED = /^\s*\d+[.)]\s+(.*)$/;

/**
 * `# Title ##` → level 1, "Title": the hashes, then the text without the spaces and closing hashes
 * around it. Trimmed by hand: the expression this replaces (`^(#{1,6})\s+(.*?)\s*#*\s*$`) tried
 * every split of a long run of spaces, and a 5,000-space heading took minutes.
 */
function headingOf(line: string): { level: number; text: string } | undefined {
  const opening = /^#{1,6}\s/.exec(line);
  if (!opening) return undefined;
  const level = opening[0].length - 1;
  let end = line.length;
  const spaceAt = (index: number) => /\s/.test(line[index]!);
  while (end > level && spaceAt(end - 1)) end--;
  while (end > level && line[end - 1] === '#') end--;
  while (end > level && spaceAt(end - 1)) end--;
  let start = level;
  while (start < end && spaceAt(start)) start++;
  return { level, text: line.slice(start, end) };
}

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
    const heading = headingOf(line);
    if (heading) {
      blocks.push({ kind: 'heading', ...heading });
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
  return renderInline(parseInline(text), keyPrefix);
}

function renderInline(nodes: InlineNode[], keyPrefix: string): ReactNode[] {
  return nodes.map((node, n) => {
    const key = `${keyPrefix}.${n}`;
    switch (node.kind) {
      case 'text':
        return node.text;
      case 'code':
        return <Code key={key}>{node.text}</Code>;
      case 'strong':
        return <strong key={key}>{renderInline(node.children, key)}</strong>;
      case 'em':
        return <em key={key}>{renderInline(node.children, key)}</em>;
      case 'strike':
        return <s key={key}>{renderInline(node.children, key)}</s>;
      case 'link': {
        const safe = safeHref(node.href);
        return safe ? (
          <Anchor key={key} href={safe} target="_blank" rel="noreferrer noopener">
            {renderInline(node.children, key)}
          </Anchor>
        ) : (
          <span key={key}>{renderInline(node.children, key)}</span>
        );
      }
    }
  });
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
