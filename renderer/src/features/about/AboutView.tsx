import { Alert, Badge, Button, Card, Code, Group, Loader, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { IconHeartbeat, IconMap } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import type { ReactNode } from 'react';
import { getBridge } from '../../rpc/bridge';
import { useTRPC } from '../../rpc/client';
import { useStartHere } from '../guide/StartHere';

const HOST_HINT: Record<string, ReactNode> = {
  web: (
    <>
      Browser mode: <Code fz="xs">tooldeck serve</Code> on this machine serves this page and the API on 127.0.0.1.
    </>
  ),
  electron: 'The desktop app: the backend runs in its main process.',
  cli: 'A command-line process.',
};

export function AboutView() {
  const trpc = useTRPC();
  const linkName = getBridge() ? 'Electron IPC' : 'server-sent events';
  const info = useQuery(trpc.system.info.queryOptions());
  const heartbeat = useSubscription(trpc.system.heartbeat.subscriptionOptions({ intervalMs: 1000 }));
  const startHere = useStartHere();

  return (
    <Stack gap="lg" maw={900}>
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={2}>About Tooldeck</Title>
          <Text c="dimmed" size="sm">
            Operations console for agent tools — MCP servers, A2A agents, gRPC tool servers and the resources that declare them.
          </Text>
        </div>
        <Button
          variant="light"
          size="sm"
          leftSection={<IconMap size={16} />}
          disabled={startHere.dismissed === false}
          title={startHere.dismissed === false ? 'Start here is shown above every section' : undefined}
          onClick={() => startHere.setDismissed(false)}
        >
          {startHere.dismissed === false ? 'Start here is shown' : 'Show Start here'}
        </Button>
      </Group>
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
                <Row label="Version" value={info.data.appVersion} hint={<>Tooldeck&apos;s version (what <Code fz="xs">tooldeck --version</Code> prints).</>} />
                <Row label="Host" value={info.data.host} hint={HOST_HINT[info.data.host] ?? 'Where this backend runs.'} />
                <Row label="Node" value={info.data.versions.node} hint="The Node.js runtime the backend runs on." />
                {info.data.versions.electron && <Row label="Electron" value={info.data.versions.electron} hint="The desktop shell's version." />}
                {info.data.versions.sqlite && <Row label="SQLite" value={info.data.versions.sqlite} hint="The engine of the call history database." />}
                <Row label="Platform" value={`${info.data.platform}/${info.data.arch}`} hint="Operating system and processor of the backend's machine." />
                <Row label="Data dir" value={<Code>{info.data.dataDir}</Code>} hint="Saved servers and agents, the workspace, call history and the sealed secrets live here." />
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
                {heartbeat.data ? `heartbeats received · last at ${new Date(heartbeat.data.at).toLocaleTimeString()}` : 'waiting for the first heartbeat'}
              </Text>
            </div>
          </Group>
          <Text size="xs" c="dimmed" mt="sm">
            The backend sends this page a heartbeat every second over the same live link that carries call progress, history and server status ({linkName}). The count goes up
            while the link works; if it stops, live views are stale until the page reconnects.
          </Text>
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

function Row({ label, value, hint }: { label: string; value: ReactNode; hint: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={110} style={{ verticalAlign: 'top' }}>
        {label}
      </Table.Th>
      <Table.Td style={{ wordBreak: 'break-word' }}>
        {value}
        <Text size="xs" c="dimmed" mt={2}>
          {hint}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}
