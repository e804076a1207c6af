import { Alert, Badge, Card, Code, Group, Loader, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { IconHeartbeat } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useTRPC } from '../../rpc/client';

export function AboutView() {
  const trpc = useTRPC();
  const info = useQuery(trpc.system.info.queryOptions());
  const heartbeat = useSubscription(trpc.system.heartbeat.subscriptionOptions({ intervalMs: 1000 }));

  return (
    <Stack gap="lg" maw={900}>
      <div>
        <Title order={2}>About Tooldeck</Title>
        <Text c="dimmed" size="sm">
          Operations console for agent tools — MCP servers, A2A agents and the resources that declare them.
        </Text>
      </div>
      {info.error && (
        <Alert color="red" title="Backend unavailable" role="alert">
          {info.error.message}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Card withBorder padding="lg">
          <Text size="xs" tt="uppercase" fw={700} c="dimmed">
            Backend
          </Text>
          {info.data ? (
            <Table variant="vertical" layout="fixed" mt="sm" aria-label="Backend information">
              <Table.Tbody>
                <Row label="Version" value={info.data.appVersion} />
                <Row label="Host" value={info.data.host} />
                <Row label="Node" value={info.data.versions.node} />
                {info.data.versions.electron && <Row label="Electron" value={info.data.versions.electron} />}
                {info.data.versions.sqlite && <Row label="SQLite" value={info.data.versions.sqlite} />}
                <Row label="Platform" value={`${info.data.platform}/${info.data.arch}`} />
                <Row label="Data dir" value={<Code>{info.data.dataDir}</Code>} />
              </Table.Tbody>
            </Table>
          ) : (
            <Loader size="sm" mt="md" aria-label="Loading backend information" />
          )}
        </Card>
        <Card withBorder padding="lg">
          <Group justify="space-between">
            <Text size="xs" tt="uppercase" fw={700} c="dimmed">
              Live link
            </Text>
            <Badge color={heartbeat.status === 'pending' ? 'green' : heartbeat.status === 'error' ? 'red' : 'gray'} variant="dot">
              {heartbeat.status === 'pending' ? 'streaming' : heartbeat.status}
            </Badge>
          </Group>
          <Group mt="md" gap="sm" align="center">
            <IconHeartbeat size={36} stroke={1.5} color="var(--mantine-color-pink-6)" aria-hidden />
            <div>
              <Text size="xl" fw={700} role="status" aria-label="Heartbeat count" aria-live="polite">
                {heartbeat.data ? heartbeat.data.seq + 1 : '—'}
              </Text>
              <Text size="xs" c="dimmed">
                {heartbeat.data ? `last tick ${new Date(heartbeat.data.at).toLocaleTimeString()}` : 'waiting for the first tick'}
              </Text>
            </div>
          </Group>
          {heartbeat.error && (
            <Text c="red" size="sm" mt="sm">
              {heartbeat.error.message}
            </Text>
          )}
        </Card>
      </SimpleGrid>
    </Stack>
  );
}

function Row({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={110}>{label}</Table.Th>
      <Table.Td style={{ wordBreak: 'break-all' }}>{value}</Table.Td>
    </Table.Tr>
  );
}
