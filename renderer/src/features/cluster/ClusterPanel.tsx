import { Alert, Group, List, Loader, Paper, Stack, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';

/**
 * A panel of the Cluster section that shows one polled read of the cluster (the operator, the
 * gateway replicas): its title, a spinner while it reads again, the read's error or its detail.
 */
export function ClusterPanel<T>({ label, title, noun, query, actions, children }: { label: string; title: string; noun: string; query: UseQueryResult<T, { message: string }>; actions?: ReactNode; children: (data: T) => ReactNode }) {
  return (
    <Paper withBorder radius="md" p="md" aria-label={label} component="section">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={5}>{title}</Title>
          <Group gap="xs">
            {query.isFetching && <Loader size="xs" aria-label={`Refreshing the ${noun}`} />}
            {actions}
          </Group>
        </Group>
        {query.error ? <Alert color="red">{query.error.message}</Alert> : query.data === undefined ? <Loader size="sm" aria-label={`Loading the ${noun}`} /> : children(query.data)}
      </Stack>
    </Paper>
  );
}

/** What a cluster read could not see (forbidden lists, unreachable replicas), named rather than failing the panel. */
export function Problems({ problems }: { problems: string[] }) {
  return (
    <Alert color="orange" title="Problems" p="xs">
      <List size="sm">
        {problems.map((p) => (
          <List.Item key={p}>{p}</List.Item>
        ))}
      </List>
    </Alert>
  );
}
