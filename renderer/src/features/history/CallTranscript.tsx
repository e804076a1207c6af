import { Badge, Code, Table, Text } from '@mantine/core';
import { IconArrowDownLeft, IconArrowUpRight, IconInfoCircle, IconTerminal2 } from '@tabler/icons-react';
import { useState } from 'react';
import type { TranscriptEntry } from '../../../../shared/mcp';

const KIND_COLOR: Record<TranscriptEntry['kind'], string> = { request: 'blue', response: 'teal', error: 'red', notification: 'grape', stderr: 'orange', event: 'gray' };

function Direction({ entry }: { entry: TranscriptEntry }) {
  if (entry.kind === 'stderr') return <IconTerminal2 size={13} aria-label="stderr" />;
  if (entry.direction === 'local') return <IconInfoCircle size={13} aria-label="event" />;
  return entry.direction === 'out' ? <IconArrowUpRight size={13} aria-label="sent" /> : <IconArrowDownLeft size={13} aria-label="received" />;
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The JSON-RPC messages of one call, timed from its start; a row opens to the full message. */
export function CallTranscript({ entries, startedAt }: { entries: TranscriptEntry[]; startedAt: number }) {
  const [open, setOpen] = useState<number>();
  return (
    <Table verticalSpacing={3} fz="xs" highlightOnHover aria-label="Transcript slice" layout="fixed">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={66}>At</Table.Th>
          <Table.Th w={24} />
          <Table.Th w={96}>Kind</Table.Th>
          <Table.Th>Message</Table.Th>
          <Table.Th w={64} ta="right">
            Bytes
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {entries.map((e) => (
          <Table.Tr key={e.seq} onClick={() => setOpen(open === e.seq ? undefined : e.seq)} style={{ cursor: 'pointer', verticalAlign: 'top' }} aria-expanded={open === e.seq}>
            <Table.Td ff="monospace" c="dimmed">
              {offset(e.at - startedAt)}
            </Table.Td>
            <Table.Td>
              <Direction entry={e} />
            </Table.Td>
            <Table.Td>
              <Badge size="xs" variant="light" color={KIND_COLOR[e.kind]}>
                {e.kind}
              </Badge>
            </Table.Td>
            <Table.Td style={{ minWidth: 0 }}>
              {e.method && (
                <Text span fw={600} ff="monospace" fz="xs" mr={6}>
                  {e.method}
                </Text>
              )}
              {e.latencyMs !== undefined && (
                <Text span c="dimmed" fz="xs" mr={6}>
                  {e.latencyMs} ms
                </Text>
              )}
              {open === e.seq ? (
                <Code block fz="xs" mt={4} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                  {pretty(e.text)}
                </Code>
              ) : (
                <Text c="dimmed" ff="monospace" fz="xs" truncate="end">
                  {e.text}
                </Text>
              )}
            </Table.Td>
            <Table.Td ta="right" ff="monospace">
              {e.bytes}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function offset(ms: number): string {
  const sign = ms < 0 ? '−' : '+';
  const abs = Math.abs(ms);
  return `${sign}${abs < 1000 ? `${abs} ms` : `${(abs / 1000).toFixed(2)} s`}`;
}
