import { Alert, Badge, Code, Group, NumberInput, Paper, SimpleGrid, Stack, Switch, Text } from '@mantine/core';
import { useState } from 'react';
import { DEFAULT_GATEWAY_PORT, type GatewayStatus } from '../../../../shared/gateway';
import { CopyButton } from '../../components/CopyButton';
import { useGatewayActions } from './useGateway';

/** What the gateway is doing, counted: the first thing to look at when an agent seems stuck. */
export interface GatewayCounts {
  liveAgents: number;
  sessions: number;
  running: number;
  held: number;
}

function Count({ label, value, color }: { label: string; value: number; color?: string }) {
  return (
    <Paper withBorder radius="sm" px="sm" py={6} role="group" aria-label={label}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} size="lg" c={value ? color : 'dimmed'}>
        {value}
      </Text>
    </Paper>
  );
}

/** On and off, the port, the URL agents are handed, and what is going on now. */
export function EndpointCard({ status, counts }: { status: GatewayStatus; counts: GatewayCounts }) {
  const { start, stop } = useGatewayActions();
  const [port, setPort] = useState<number | string>(status.port ?? DEFAULT_GATEWAY_PORT);
  const portValue = Number(port);
  const portValid = Number.isInteger(portValue) && portValue >= 1 && portValue <= 65535;
  const busy = start.isPending || stop.isPending;

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Gateway endpoint" h="100%">
      <Stack gap="sm" h="100%">
        <Group justify="space-between" align="flex-end" wrap="nowrap" gap="sm">
          <Switch
            label="Serve the gateway"
            description="Streamable HTTP on 127.0.0.1, for agents only; stays on when Tooldeck restarts"
            checked={status.running}
            disabled={busy || (!status.running && !portValid)}
            onChange={(event) => (event.currentTarget.checked ? start.mutate({ port: portValue }) : stop.mutate())}
          />
          <NumberInput label="Port" size="xs" w={96} min={1} max={65535} allowDecimal={false} value={status.running ? status.port : port} onChange={setPort} disabled={status.running} error={!status.running && !portValid} />
        </Group>
        {status.running && status.url ? (
          <Group gap={6} wrap="nowrap">
            <Badge size="sm" color="teal" variant="light">
              Listening
            </Badge>
            <Text size="sm" ff="monospace" truncate="end" aria-label="Gateway URL">
              {status.url}
            </Text>
            <CopyButton value={status.url} label="Copy gateway URL" />
          </Group>
        ) : (
          <Text size="sm" c="dimmed">
            Off. Agents cannot reach their tools through Tooldeck until it serves; <Code fz="xs">tooldeck gateway</Code> serves it from a terminal too.
          </Text>
        )}
        <SimpleGrid cols={4} spacing="xs" mt="auto">
          <Count label="Live agents" value={counts.liveAgents} />
          <Count label="Sessions" value={counts.sessions} />
          <Count label="Running" value={counts.running} color="blue" />
          <Count label="Held" value={counts.held} color="orange" />
        </SimpleGrid>
        {status.error && !status.running && (
          <Alert color="red" variant="light" p="xs">
            <Text size="xs">{status.error}</Text>
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}
