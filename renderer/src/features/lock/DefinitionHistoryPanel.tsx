import { Alert, Badge, Box, Button, Center, Group, Loader, Paper, ScrollArea, Select, Stack, Table, Text, Timeline, Tooltip } from '@mantine/core';
import { IconCheck, IconGitCompare, IconShieldCheck, IconShieldX } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import type { RevisionRef, RevisionSummary, SourceReview } from '../../../../shared/lock';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';
import { DefinitionDiffView } from './DefinitionDiffView';
import { RevealedText } from './RevealedText';
import { REVIEW_COLOR } from './reviewColors';
import { useLockDecisions, useSourceReview } from './useLock';

/**
 * A source's tool definitions over time: what the lockfile holds for review (approve or reject per
 * tool or for the whole source), the revision timeline, and a diff between any two revisions, the
 * approved set, or the current one.
 */
export function DefinitionHistoryPanel({ source }: { source: string }) {
  const review = useSourceReview(source);
  // A new set listed, or a decision written: the timeline and the diff are read again.
  const version = review ? `${review.revision}:${review.locked}:${review.tools.map((tool) => `${tool.tool}=${tool.hash}:${tool.state}`).join(',')}` : '';
  return (
    <Stack gap="md">
      {review && <ReviewCard review={review} />}
      <RevisionHistory source={source} version={version} />
    </Stack>
  );
}

/**
 * Where a source's approved definitions are kept: tooldeck.lock (then "approved" is a side to
 * compare), or — a cluster LanguageTool — the set hash of its approval annotation, which marks the
 * revisions that are that set.
 */
export type RevisionApproval = 'lock' | { setHash: string | undefined };

/**
 * The revision timeline of any source in the definition store (a local source, or a cluster
 * LanguageTool) and a diff between any two of its revisions.
 */
export function RevisionHistory({
  source,
  version,
  approval = 'lock',
  emptyText = 'No revisions yet: connect the source once.',
}: {
  source: string;
  /** Changes whenever the source's definitions or their approval may have: the timeline and the diff are read again. */
  version: string;
  approval?: RevisionApproval;
  emptyText?: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const history = useQuery(trpc.lock.history.queryOptions({ source }));
  const locked = approval === 'lock';
  const approvedSetHash = locked ? undefined : approval.setHash;
  // Without a lockfile side, the diff starts at the change into the newest revision.
  const [chosenFrom, setFrom] = useState<RevisionRef | undefined>(locked ? 'approved' : undefined);
  const [chosenTo, setTo] = useState<RevisionRef | undefined>(locked ? 'current' : undefined);
  const revisions = useMemo(
    () => (history.data ?? []).map((revision) => (locked ? revision : { ...revision, approved: approvedSetHash !== undefined && revision.setHash === approvedSetHash })),
    [history.data, locked, approvedSetHash],
  );
  const to = chosenTo ?? revisions[0]?.id;
  const from = chosenFrom ?? revisions[1]?.id ?? to;
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: trpc.lock.history.queryKey({ source }) });
    void queryClient.invalidateQueries({ queryKey: trpc.lock.compare.pathKey() });
  }, [version, source, queryClient, trpc]);

  const options = [
    ...(locked
      ? [
          { value: 'approved', label: 'Approved in tooldeck.lock' },
          { value: 'current', label: 'Current definitions' },
        ]
      : []),
    ...revisions.map((revision) => ({ value: String(revision.id), label: `Revision #${revision.id} · ${new Date(revision.seenAt).toLocaleString()}` })),
  ];
  const parse = (value: string | null): RevisionRef => (value === 'approved' || value === 'current' ? value : Number(value));

  return (
    <Group align="flex-start" gap="lg" wrap="nowrap">
      <Paper withBorder p="sm" w={320} style={{ flexShrink: 0 }}>
        <Text fw={600} size="sm" mb="xs">
          Revisions
        </Text>
        {history.isPending ? (
          <Center py="md">
            <Loader size="sm" aria-label="Loading revisions" />
          </Center>
        ) : revisions.length === 0 ? (
          <Text size="sm" c="dimmed">
            {emptyText}
          </Text>
        ) : (
          <ScrollArea.Autosize mah={520}>
            <Timeline bulletSize={18} lineWidth={2} active={revisions.length} aria-label="Revision timeline">
              {revisions.map((revision) => (
                <Timeline.Item key={revision.id} bullet={revision.approved ? <IconCheck size={11} /> : undefined} title={<RevisionTitle revision={revision} />}>
                  <Text size="xs" c="dimmed">
                    {new Date(revision.seenAt).toLocaleString()}
                    {revision.lastSeenAt !== revision.seenAt ? ` · last seen ${new Date(revision.lastSeenAt).toLocaleString()}` : ''}
                  </Text>
                  <Group gap={4} mt={2}>
                    <Button size="compact-xs" variant={to === revision.id ? 'filled' : 'subtle'} onClick={() => setTo(revision.id)} aria-label={`Compare to revision ${revision.id}`}>
                      to
                    </Button>
                    <Button size="compact-xs" variant={from === revision.id ? 'filled' : 'subtle'} onClick={() => setFrom(revision.id)} aria-label={`Compare from revision ${revision.id}`}>
                      from
                    </Button>
                  </Group>
                </Timeline.Item>
              ))}
            </Timeline>
          </ScrollArea.Autosize>
        )}
      </Paper>
      <Box style={{ flex: 1, minWidth: 0 }}>
        {from !== undefined && to !== undefined && (
          <>
            <Group gap="xs" mb="sm" align="flex-end">
              <Select label="From" size="xs" w={260} data={options} value={String(from)} onChange={(value) => value && setFrom(parse(value))} allowDeselect={false} aria-label="Compare from" />
              <IconGitCompare size={18} style={{ marginBottom: 6 }} />
              <Select label="To" size="xs" w={260} data={options} value={String(to)} onChange={(value) => value && setTo(parse(value))} allowDeselect={false} aria-label="Compare to" />
            </Group>
            <Comparison source={source} from={from} to={to} />
          </>
        )}
      </Box>
    </Group>
  );
}

function RevisionTitle({ revision }: { revision: RevisionSummary }) {
  const parts = [revision.added && `+${revision.added}`, revision.removed && `−${revision.removed}`, revision.renamed && `${revision.renamed} renamed`, revision.changed && `${revision.changed} changed`].filter(Boolean);
  return (
    <Group gap={6} wrap="nowrap">
      <Text size="sm" fw={600}>
        #{revision.id}
      </Text>
      <Text size="xs">
        {revision.toolCount} tools{parts.length ? ` · ${parts.join(', ')}` : ''}
      </Text>
      {revision.sameAs !== undefined && (
        <Tooltip label={`The very same definitions as revision #${revision.sameAs}`}>
          <Badge size="xs" variant="outline">
            = #{revision.sameAs}
          </Badge>
        </Tooltip>
      )}
      {revision.approved && (
        <Badge size="xs" color="teal" variant="light">
          approved
        </Badge>
      )}
    </Group>
  );
}

function Comparison({ source, from, to }: { source: string; from: RevisionRef; to: RevisionRef }) {
  const trpc = useTRPC();
  const diff = useQuery({ ...trpc.lock.compare.queryOptions({ source, from, to }), retry: false });
  if (diff.error) return <Alert color="red">{appErrorOf(diff.error).message}</Alert>;
  if (!diff.data) {
    return (
      <Center py="md">
        <Loader size="sm" aria-label="Comparing" />
      </Center>
    );
  }
  return <DefinitionDiffView diff={diff.data} evals />;
}

/** What the lockfile holds back for this source, with approve and reject per tool and for all. */
export function ReviewCard({ review }: { review: SourceReview }) {
  const { approve, reject } = useLockDecisions();
  const held = review.tools.filter((tool) => tool.state !== 'approved');
  const removed = review.removed.filter((tool) => !tool.renamedTo);
  const hashes = Object.fromEntries(held.map((tool) => [tool.tool, tool.hash]));
  if (held.length === 0) {
    return (
      <Alert color="teal" variant="light" icon={<IconShieldCheck size={18} />} title={review.locked ? 'Every tool matches tooldeck.lock' : 'Not in tooldeck.lock yet'}>
        <Text size="sm">
          {review.locked
            ? `${review.tools.length} approved definition(s)${removed.length ? `; ${removed.length} approved tool(s) are no longer listed (${removed.map((tool) => tool.tool).join(', ')})` : ''}.`
            : 'Its definitions are trusted on first use and written to the lock.'}
        </Text>
        {removed.length > 0 && (
          <Button mt="xs" size="xs" variant="light" color="teal" loading={approve.isPending} onClick={() => approve.mutate({ source: review.source })}>
            Update the lock to the current set
          </Button>
        )}
      </Alert>
    );
  }
  return (
    <Paper withBorder p="sm" aria-label="Held for review" style={{ borderColor: 'var(--mantine-color-orange-outline)' }}>
      <Group justify="space-between" mb={6}>
        <Group gap="xs">
          <IconShieldX size={18} color="var(--mantine-color-orange-6)" />
          <Text fw={600} size="sm">
            {held.length} tool{held.length === 1 ? '' : 's'} held for review
          </Text>
          <Text size="xs" c="dimmed">
            Left out of agents’ tools.json and config.yaml; callable here only after confirming the definition.
          </Text>
        </Group>
        <Group gap={6}>
          <Button size="xs" color="teal" loading={approve.isPending} onClick={() => approve.mutate({ source: review.source, hashes })}>
            Approve all
          </Button>
          <Button size="xs" color="red" variant="light" loading={reject.isPending} onClick={() => reject.mutate({ source: review.source, hashes })}>
            Reject all held
          </Button>
        </Group>
      </Group>
      <Table verticalSpacing={4} aria-label="Held tools">
        <Table.Tbody>
          {held.map((tool) => (
            <Table.Tr key={tool.tool}>
              <Table.Td w={110}>
                <Badge color={REVIEW_COLOR[tool.state]} variant="light" size="sm">
                  {tool.state}
                </Badge>
              </Table.Td>
              <Table.Td ff="monospace" fz="sm">
                <RevealedText text={tool.tool} />
              </Table.Td>
              <Table.Td fz="xs" c="dimmed">
                {tool.state === 'renamed' ? `was ${tool.previousName}` : tool.state === 'changed' ? (tool.changes.length ? tool.changes.join(', ') : 'definition hash differs') : tool.state === 'rejected' ? 'denied' : ''}
                {tool.lockedVersion && tool.version && tool.lockedVersion !== tool.version ? ` (version ${tool.lockedVersion} → ${tool.version})` : ''}
              </Table.Td>
              <Table.Td ta="right" w={190}>
                <Group gap={4} justify="flex-end">
                  <Button size="compact-xs" color="teal" variant="light" onClick={() => approve.mutate({ source: review.source, tools: [tool.tool], hashes: { [tool.tool]: tool.hash } })} aria-label={`Approve ${tool.tool}`}>
                    Approve
                  </Button>
                  {tool.state !== 'rejected' && (
                    <Button size="compact-xs" color="red" variant="subtle" onClick={() => reject.mutate({ source: review.source, tools: [tool.tool], hashes: { [tool.tool]: tool.hash } })} aria-label={`Reject ${tool.tool}`}>
                      Reject
                    </Button>
                  )}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
