import { Alert, Badge, Button, Code, Group, Paper, ScrollArea, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { ServerSnapshot } from '../../../../shared/mcp';
import { useTRPC } from '../../rpc/client';
import { McpIconImage } from '../../components/McpIconImage';
import type { McpIcon } from '../../../../shared/icons';

type Contents = Array<{ uri: string; mimeType?: string; text?: string; blob?: string }>;

export function ResourcesPanel({ server }: { server: ServerSnapshot }) {
  const trpc = useTRPC();
  const read = useMutation(trpc.mcp.readResource.mutationOptions());
  const [uri, setUri] = useState('');
  const open = (target: string) => {
    setUri(target);
    read.mutate({ server: server.config.name, uri: target });
  };
  const contents = (read.data as { contents?: Contents } | undefined)?.contents;

  return (
    <Stack gap="md">
      <Table highlightOnHover verticalSpacing={6} aria-label="Resources">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>URI</Table.Th>
            <Table.Th w={140}>Type</Table.Th>
            <Table.Th w={80} />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {server.resources.map((r) => (
            <Table.Tr key={r.uri}>
              <Table.Td fw={500}>
                <Group gap={6} wrap="nowrap">
                  <McpIconImage icons={(r as { icons?: McpIcon[] }).icons} size={16} label={`${r.name} icon`} />
                  {r.title ?? r.name}
                </Group>
              </Table.Td>
              <Table.Td ff="monospace" fz="xs">
                {r.uri}
              </Table.Td>
              <Table.Td>{r.mimeType && <Badge variant="light" size="xs">{r.mimeType}</Badge>}</Table.Td>
              <Table.Td>
                <Button size="compact-xs" variant="light" onClick={() => open(r.uri)} aria-label={`Read ${r.name}`}>
                  Read
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {server.resources.length === 0 && <Text c="dimmed" size="sm">This server lists no resources.</Text>}
      {server.resourceTemplates.length > 0 && (
        <div>
          <Title order={6} mb={6}>
            Templates
          </Title>
          {server.resourceTemplates.map((t) => (
            <Group key={t.uriTemplate} gap="xs" mb={4}>
              <Text size="sm" fw={500}>
                {t.title ?? t.name}
              </Text>
              <Code fz="xs">{t.uriTemplate}</Code>
            </Group>
          ))}
        </div>
      )}
      <Group gap="xs">
        <TextInput size="xs" style={{ flex: 1 }} placeholder="Resource URI, e.g. demo://resource/static/document/architecture.md" value={uri} onChange={(e) => setUri(e.currentTarget.value)} aria-label="Resource URI" ff="monospace" />
        <Button size="xs" onClick={() => open(uri)} disabled={!uri} loading={read.isPending}>
          Read URI
        </Button>
      </Group>
      {read.error && (
        <Alert color="red" title="Read failed">
          {read.error.message}
        </Alert>
      )}
      {contents?.map((c, i) => (
        <Paper key={i} withBorder p="sm" aria-label={`Contents of ${c.uri}`}>
          <Group justify="space-between" mb={6}>
            <Text size="xs" ff="monospace">
              {c.uri}
            </Text>
            {c.mimeType && <Badge size="xs">{c.mimeType}</Badge>}
          </Group>
          {c.text !== undefined ? (
            <ScrollArea.Autosize mah={360}>
              <Code block fz="xs" style={{ whiteSpace: 'pre-wrap' }}>
                {c.text}
              </Code>
            </ScrollArea.Autosize>
          ) : (
            <Text size="sm">Binary content, {Math.round(((c.blob?.length ?? 0) * 3) / 4)} bytes</Text>
          )}
        </Paper>
      ))}
    </Stack>
  );
}
