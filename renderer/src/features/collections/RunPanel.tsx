import { Alert, Badge, Button, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { IconDownload, IconPlayerStop } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { formatDuration } from '../../components/format';
import { useTRPC } from '../../rpc/client';
import { downloadText } from '../../shell/download';
import { doneCount, type RunProgress } from './runProgress';
import { RunResultsTable } from './RunResultsTable';

const SEGMENTS = [
  { state: 'passed', color: 'teal' },
  { state: 'failed', color: 'red' },
  { state: 'errored', color: 'orange' },
  { state: 'skipped', color: 'gray' },
] as const;

/** A run as it goes: progress, each request's state, then the summary and reports to download. */
export function RunPanel({ progress, onCancel }: { progress: RunProgress; onCancel: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  if (progress.phase === 'idle') {
    return (
      <Paper radius="md" p="lg" style={{ border: '1px dashed var(--mantine-color-default-border)' }}>
        <Text size="sm" c="dimmed" ta="center">
          Run the collection to see each request&apos;s result here.
        </Text>
      </Paper>
    );
  }
  const total = progress.rows.length;
  const done = doneCount(progress);
  const summary = progress.summary;
  const download = async (format: 'junit' | 'json') => {
    const runId = progress.runId!;
    const text = await queryClient.fetchQuery(trpc.collections.report.queryOptions({ runId, format }, { staleTime: Infinity }));
    downloadText(`${summary?.collection ?? 'run'}-${runId}.${format === 'junit' ? 'xml' : 'json'}`, text, format === 'junit' ? 'application/xml' : 'application/json');
  };

  return (
    <Stack gap="sm">
      <Group justify="space-between" wrap="wrap">
        <Group gap="xs">
          {progress.phase === 'running' ? (
            <Text size="sm" role="status">
              Running: {done} of {total} done
            </Text>
          ) : summary ? (
            <>
              <Badge size="lg" color={summary.ok ? 'teal' : 'red'} variant="light">
                {summary.ok ? 'All passed' : summary.canceled ? 'Canceled' : 'Failures'}
              </Badge>
              <Text size="sm" role="status">
                {summary.requests.passed} passed, {summary.requests.failed} failed, {summary.requests.errored} errored, {summary.requests.skipped} skipped · {summary.assertions.passed}/{summary.assertions.total} assertions ·{' '}
                {formatDuration(summary.durationMs)}
              </Text>
            </>
          ) : null}
        </Group>
        <Group gap="xs">
          {progress.phase === 'running' && (
            <Button variant="default" size="xs" leftSection={<IconPlayerStop size={14} />} onClick={onCancel}>
              Stop run
            </Button>
          )}
          {summary && (
            <>
              <Button variant="default" size="xs" leftSection={<IconDownload size={14} />} onClick={() => void download('junit')}>
                Download JUnit
              </Button>
              <Button variant="default" size="xs" leftSection={<IconDownload size={14} />} onClick={() => void download('json')}>
                Download JSON
              </Button>
            </>
          )}
        </Group>
      </Group>
      <Progress.Root size="md" aria-label="Run progress">
        {SEGMENTS.map(({ state, color }) => {
          const count = progress.rows.filter((r) => r.state === state).length;
          return count > 0 && <Progress.Section key={state} value={(count / total) * 100} color={color} animated={progress.phase === 'running'} aria-label={`${count} ${state}`} />;
        })}
      </Progress.Root>
      {progress.error && (
        <Alert color={progress.error.code === 'Canceled' ? 'gray' : 'red'} variant="light" title={progress.error.code === 'Canceled' ? 'Stopped' : 'The run failed'}>
          {progress.error.message}
        </Alert>
      )}
      {summary && summary.connectFailures.length > 0 && (
        <Alert color="orange" variant="light" title="Targets that could not be connected">
          {summary.connectFailures.map((f) => (
            <Text key={f.target} size="sm">
              {f.target}: {f.error.message}
            </Text>
          ))}
        </Alert>
      )}
      {total > 0 && <RunResultsTable rows={progress.rows} />}
    </Stack>
  );
}
