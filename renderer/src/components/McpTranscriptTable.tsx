import { Badge, Code, Table, Text } from '@mantine/core';
import { IconArrowDownLeft, IconArrowUpRight, IconInfoCircle, IconTerminal2 } from '@tabler/icons-react';
import { useState } from 'react';
import type { TranscriptEntry } from '../../../shared/mcp';
import { prettyJson } from './prettyJson';
import { formatClock } from './format';

const KIND_COLOR: Record<TranscriptEntry['kind'], string> = { request: 'blue', response: 'teal', error: 'red', notification: 'grape', stderr: 'orange', event: 'gray' };

function DirectionIcon({ entry }: { entry: TranscriptEntry }) {
  if (entry.kind === 'stderr') return <IconTerminal2 size={14} aria-label="stderr" />;
  if (entry.direction === 'local') return <IconInfoCircle size={14} aria-label="event" />;
  return entry.direction === 'out' ? <IconArrowUpRight size={14} aria-label="sent" /> : <IconArrowDownLeft size={14} aria-label="received" />;
}

export interface McpTranscriptTableProps {
  entries: readonly TranscriptEntry[];
  /** Times as the clock showed them, or as offsets from a call's start. */
  time: 'clock' | { since: number };
  label: string;
  striped?: boolean;
  stickyHeader?: boolean;
  /** For narrow panels: latency goes beside the method instead of in its own column. */
  compact?: boolean;
}

/**
 * MCP JSON-RPC messages and stderr lines, one row each: time, direction, kind, method, latency and
 * size; a row opens to the whole message. The server's Transcript tab and a recorded call's detail
 * both show their messages with it.
 */
export function McpTranscriptTable({ entries, time, label, striped, stickyHeader, compact }: McpTranscriptTableProps) {
  const [open, setOpen] = useState<number>();
  return (
    <Table striped={striped} stickyHeader={stickyHeader} highlightOnHover verticalSpacing={4} fz="xs" aria-label={label} layout="fixed">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={time === 'clock' ? 92 : 70}>{time === 'clock' ? 'Time' : 'At'}</Table.Th>
          <Table.Th w={28} />
          <Table.Th w={compact ? 92 : 104}>Kind</Table.Th>
          <Table.Th>{compact ? 'Message' : 'Method / message'}</Table.Th>
          {!compact && (
            <Table.Th w={76} ta="right">
              Latency
            </Table.Th>
          )}
          <Table.Th w={64} ta="right">
            Bytes
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {entries.map((e) => (
          <Table.Tr key={e.seq} onClick={() => setOpen(open === e.seq ? undefined : e.seq)} style={{ cursor: 'pointer', verticalAlign: 'top' }} aria-expanded={open === e.seq}>
            <Table.Td ff="monospace" c={time === 'clock' ? undefined : 'dimmed'}>
              {time === 'clock' ? formatClock(e.at) : offset(e.at - time.since)}
            </Table.Td>
            <Table.Td>
              <DirectionIcon entry={e} />
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
              {compact && e.latencyMs !== undefined && (
                <Text span c="dimmed" fz="xs" mr={6}>
                  {e.latencyMs} ms
                </Text>
              )}
              {open === e.seq ? (
                <Code block fz="xs" mt={4} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                  {prettyJson(e.text)}
                </Code>
              ) : (
                <Text c="dimmed" ff="monospace" fz="xs" truncate="end">
                  {e.text}
                </Text>
              )}
            </Table.Td>
            {!compact && (
              <Table.Td ta="right" ff="monospace">
                {e.latencyMs !== undefined ? `${e.latencyMs} ms` : ''}
              </Table.Td>
            )}
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
