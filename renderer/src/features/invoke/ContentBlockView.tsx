import { ActionIcon, Alert, Badge, Box, Button, Code, Group, Image, Paper, ScrollArea, SegmentedControl, Stack, Text, Tooltip } from '@mantine/core';
import { IconDownload, IconFileText, IconLink, IconMusic, IconPackage, IconPhoto } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useMemo, useState, type ReactNode } from 'react';
import type { ContentBlock } from '../../../../shared/registry';
import { CopyButton } from '../../components/CopyButton';
import { base64Bytes, downloadBase64, formatBytes } from '../../components/format';
import { JsonTree } from '../../components/JsonTree';
import { MarkdownText } from '../../components/MarkdownText';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';

export interface ContentBlockViewProps {
  block: ContentBlock;
  /** Position in the result, for names ("Content 2: text"). */
  index: number;
  /** The MCP server the result came from, when it did: resource links can then be read. */
  server?: string;
}

/** One content block of a tool result: text, image, audio, a resource link or an embedded resource. */
export function ContentBlockView({ block, index, server }: ContentBlockViewProps) {
  switch (block.type) {
    case 'text':
      return <TextBlock text={block.text} index={index} />;
    case 'image':
      return (
        <BlockFrame
          icon={<IconPhoto size={14} />}
          kind="Image"
          index={index}
          meta={[block.mimeType, formatBytes(base64Bytes(block.data))]}
          actions={<DownloadButton data={block.data} mimeType={block.mimeType} fileName={`image-${index + 1}.${extensionOf(block.mimeType)}`} />}
        >
          <Box
            p="xs"
            style={{
              display: 'inline-block',
              borderRadius: 'var(--mantine-radius-sm)',
              backgroundColor: 'var(--mantine-color-default-hover)',
              backgroundImage: 'repeating-conic-gradient(var(--mantine-color-default-border) 0% 25%, transparent 0% 50%)',
              backgroundSize: '16px 16px',
            }}
          >
            <Image src={`data:${block.mimeType};base64,${block.data}`} alt={`Image ${index + 1} (${block.mimeType})`} fit="contain" mah={420} w="auto" maw="100%" miw={48} />
          </Box>
        </BlockFrame>
      );
    case 'audio':
      return (
        <BlockFrame
          icon={<IconMusic size={14} />}
          kind="Audio"
          index={index}
          meta={[block.mimeType, formatBytes(base64Bytes(block.data))]}
          actions={<DownloadButton data={block.data} mimeType={block.mimeType} fileName={`audio-${index + 1}.${extensionOf(block.mimeType)}`} />}
        >
          <audio controls src={`data:${block.mimeType};base64,${block.data}`} aria-label={`Audio ${index + 1} (${block.mimeType})`} style={{ width: '100%', maxWidth: 480 }} />
        </BlockFrame>
      );
    case 'resource_link':
      return <ResourceLinkBlock block={block} index={index} server={server} />;
    case 'resource':
      return (
        <BlockFrame icon={<IconPackage size={14} />} kind="Embedded resource" index={index} meta={[block.resource.mimeType]}>
          <ResourceContents contents={block.resource} />
        </BlockFrame>
      );
  }
}

function BlockFrame({ icon, kind, index, meta = [], actions, children }: { icon: ReactNode; kind: string; index: number; meta?: Array<string | undefined>; actions?: ReactNode; children: ReactNode }) {
  return (
    <Paper withBorder radius="md" component="article" aria-label={`Content ${index + 1}: ${kind.toLowerCase()}`}>
      <Group justify="space-between" px="sm" py={6} gap="xs" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
        <Group gap={6}>
          <Box c="dimmed" style={{ display: 'inline-flex' }} aria-hidden>
            {icon}
          </Box>
          <Text size="xs" fw={600} tt="uppercase" c="dimmed">
            {kind}
          </Text>
          {meta.filter(Boolean).map((m) => (
            <Badge key={m} size="xs" variant="light" color="gray" radius="sm" style={{ textTransform: 'none' }}>
              {m}
            </Badge>
          ))}
        </Group>
        <Group gap={4}>{actions}</Group>
      </Group>
      <Box p="sm">{children}</Box>
    </Paper>
  );
}

type TextMode = 'plain' | 'markdown' | 'json';

function parsedJson(text: string): { value: unknown } | undefined {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return undefined;
  try {
    return { value: JSON.parse(trimmed) };
  } catch {
    return undefined;
  }
}

function TextBlock({ text, index }: { text: string; index: number }) {
  const [mode, setMode] = useState<TextMode>('plain');
  const json = useMemo(() => parsedJson(text), [text]);
  const modes = [
    { label: 'Plain', value: 'plain' },
    { label: 'Markdown', value: 'markdown' },
    ...(json ? [{ label: 'JSON', value: 'json' }] : []),
  ];
  return (
    <BlockFrame
      icon={<IconFileText size={14} />}
      kind="Text"
      index={index}
      meta={[`${text.length.toLocaleString()} chars`]}
      actions={
        <>
          <SegmentedControl size="xs" aria-label={`Text ${index + 1} view`} value={mode} onChange={(m) => setMode(m as TextMode)} data={modes} />
          <CopyButton value={text} label={`Copy text ${index + 1}`} />
        </>
      }
    >
      <ScrollArea.Autosize mah={480} type="auto">
        {mode === 'markdown' ? (
          <MarkdownText text={text} />
        ) : mode === 'json' && json ? (
          <JsonTree value={json.value} label={`Text ${index + 1} as JSON`} />
        ) : (
          <Box component="pre" m={0} ff="monospace" fz="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', lineHeight: 1.6 }}>
            {text}
          </Box>
        )}
      </ScrollArea.Autosize>
    </BlockFrame>
  );
}

type ResourceLink = Extract<ContentBlock, { type: 'resource_link' }>;

interface ResourceContentsShape {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

function ResourceLinkBlock({ block, index, server }: { block: ResourceLink; index: number; server?: string }) {
  const trpc = useTRPC();
  const read = useMutation(trpc.mcp.readResource.mutationOptions());
  const contents = (read.data as { contents?: ResourceContentsShape[] } | undefined)?.contents;
  return (
    <BlockFrame
      icon={<IconLink size={14} />}
      kind="Resource link"
      index={index}
      meta={[block.mimeType, block.size !== undefined ? formatBytes(block.size) : undefined]}
      actions={<CopyButton value={block.uri} label={`Copy URI of ${block.name}`} />}
    >
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <div style={{ minWidth: 0 }}>
            <Text size="sm" fw={600}>
              {block.title ?? block.name}
            </Text>
            <Code style={{ wordBreak: 'break-all' }}>{block.uri}</Code>
            {block.description && (
              <Text size="xs" c="dimmed" mt={4}>
                {block.description}
              </Text>
            )}
          </div>
          {server && (
            <Button size="xs" variant="light" loading={read.isPending} onClick={() => read.mutate({ server, uri: block.uri })} aria-label={`Read ${block.name}`}>
              Read
            </Button>
          )}
        </Group>
        {read.error && (
          <Alert color="red" variant="light" p="xs" title="Could not read the resource">
            {appErrorOf(read.error).message}
          </Alert>
        )}
        {contents?.map((c, i) => (
          <Paper key={`${c.uri}:${i}`} withBorder radius="sm" p="xs" bg="var(--mantine-color-default-hover)">
            <ResourceContents contents={c} />
          </Paper>
        ))}
      </Stack>
    </BlockFrame>
  );
}

function ResourceContents({ contents }: { contents: ResourceContentsShape }) {
  const { blob } = contents;
  const fileName = contents.uri.split(/[/\\]/).filter(Boolean).pop() || 'resource';
  return (
    <Stack gap={6}>
      <Group gap={6} justify="space-between" wrap="nowrap">
        <Code style={{ wordBreak: 'break-all' }}>{contents.uri}</Code>
        {typeof contents.text === 'string' && <CopyButton value={contents.text} label={`Copy contents of ${fileName}`} />}
      </Group>
      {typeof contents.text === 'string' ? (
        <ScrollArea.Autosize mah={360} type="auto">
          <Box component="pre" m={0} ff="monospace" fz="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', lineHeight: 1.6 }}>
            {contents.text}
          </Box>
        </ScrollArea.Autosize>
      ) : typeof blob === 'string' ? (
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            Binary, {formatBytes(base64Bytes(blob))}
          </Text>
          <Button
            size="xs"
            variant="default"
            leftSection={<IconDownload size={14} aria-hidden />}
            onClick={() => downloadBase64(blob, contents.mimeType ?? 'application/octet-stream', fileName)}
            aria-label={`Download ${fileName}`}
          >
            Download
          </Button>
        </Group>
      ) : null}
    </Stack>
  );
}

function DownloadButton({ data, mimeType, fileName }: { data: string; mimeType: string; fileName: string }) {
  return (
    <Tooltip label={`Download ${fileName}`} withArrow position="left">
      <ActionIcon variant="subtle" color="gray" size="sm" onClick={() => downloadBase64(data, mimeType, fileName)} aria-label={`Download ${fileName}`}>
        <IconDownload size={14} aria-hidden />
      </ActionIcon>
    </Tooltip>
  );
}

function extensionOf(mimeType: string): string {
  const subtype = mimeType.split('/')[1] ?? 'bin';
  return subtype.split(/[+;]/)[0] || 'bin';
}
