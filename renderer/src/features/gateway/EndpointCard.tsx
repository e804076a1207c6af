import { Alert, Badge, Group, NumberInput, Paper, Stack, Switch, Text } from '@mantine/core';
import { useState } from 'react';
import { DEFAULT_GATEWAY_PORT, type GatewayStatus } from '../../../../shared/gateway';
import { CopyButton } from '../../components/CopyButton';
import { useGatewayActions } from './useGateway';

/** On and off, the port, and the URL agents are handed. */
export function EndpointCard({ status }: { status: GatewayStatus }) {
  const { start, stop } = useGatewayActions();
  const [port, setPort] = useState<number | string>(status.port ?? DEFAULT_GATEWAY_PORT);
  const portValue = Number(port);
  const portValid = Number.isInteger(portValue) && portValue >= 1 && portValue <= 65535;
  const busy = start.isPending || stop.isPending;

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Gateway endpoint" h="100%">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-end" wrap="nowrap" gap="sm">
          <Switch
            label="Serve the gateway"
            description="Streamable HTTP on 127.0.0.1, for agents only"
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
            Off. Agents cannot reach their tools through Tooldeck until it serves; `tooldeck gateway` serves it from a terminal too.
          </Text>
        )}
        {status.error && !status.running && (
          <Alert color="red" variant="light" p="xs">
            <Text size="xs">{status.error}</Text>
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}
