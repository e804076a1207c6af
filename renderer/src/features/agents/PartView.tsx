import { Anchor, Badge, Box, Group, Image, Stack, Text } from '@mantine/core';
import { IconDownload, IconExternalLink, IconFile } from '@tabler/icons-react';
import type { A2aPart } from '../../../../shared/a2a';
import { JsonTree } from '../../components/JsonTree';
import { MarkdownText } from '../../components/MarkdownText';
import { base64Bytes, formatBytes } from '../../components/format';

const isMarkdown = (part: Extract<A2aPart, { kind: 'text' }>, name?: string) => part.mediaType === 'text/markdown' || /\.(md|markdown)$/i.test(name ?? '');

/** One part of a message or artifact, shown by its kind: text, data as a JSON tree, a file as a link. */
export function PartView({ part, name }: { part: A2aPart; name?: string }) {
  switch (part.kind) {
    case 'text':
      return isMarkdown(part, name) ? (
        <MarkdownText text={part.text} />
      ) : (
        <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {part.text}
        </Text>
      );
    case 'data':
      return (
        <Box>
          <JsonTree value={part.data} label={`${name ?? 'Data'} (data)`} expandDepth={2} />
        </Box>
      );
    case 'file':
      return <FilePart part={part} />;
  }
}

function FilePart({ part }: { part: Extract<A2aPart, { kind: 'file' }> }) {
  const mediaType = part.mediaType || 'application/octet-stream';
  if (part.bytesBase64 !== undefined) {
    const fileName = part.filename || 'file';
    const href = `data:${mediaType};base64,${part.bytesBase64}`;
    return (
      <Stack gap={6}>
        <Group gap={8}>
          <IconFile size={16} aria-hidden />
          <Anchor href={href} download={fileName} size="sm" fw={500}>
            <Group gap={4} component="span">
              <IconDownload size={14} aria-hidden />
              Download {fileName}
            </Group>
          </Anchor>
          <Text size="xs" c="dimmed">
            {formatBytes(base64Bytes(part.bytesBase64))}
          </Text>
          <Badge size="xs" variant="outline" color="gray">
            {mediaType}
          </Badge>
        </Group>
        {mediaType.startsWith('image/') && <Image src={href} alt={fileName} maw={360} radius="sm" />}
      </Stack>
    );
  }
  if (part.url) {
    return (
      <Group gap={8}>
        <IconFile size={16} aria-hidden />
        <Anchor href={part.url} target="_blank" rel="noopener noreferrer" size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
          <Group gap={4} component="span" wrap="nowrap">
            {part.filename || part.url}
            <IconExternalLink size={14} aria-hidden />
          </Group>
        </Anchor>
        {part.mediaType && (
          <Badge size="xs" variant="outline" color="gray">
            {part.mediaType}
          </Badge>
        )}
      </Group>
    );
  }
  return (
    <Text size="sm" c="dimmed">
      A file part with neither bytes nor a URL{part.filename ? ` (${part.filename})` : ''}.
    </Text>
  );
}
