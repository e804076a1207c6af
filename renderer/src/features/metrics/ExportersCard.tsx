import { Alert, Anchor, Badge, Button, Code, Divider, Group, NumberInput, Paper, Skeleton, Stack, Switch, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';

interface ExporterSettings {
  prometheus: { enabled: boolean; port: number };
  otlp: { enabled: boolean; url: string; intervalMs: number };
}

interface ExporterStatus {
  prometheus?: { url: string };
  otlp?: { url: string; intervalMs: number; lastExportAt?: number; lastError?: string };
}

/** The same instruments, scraped by Prometheus or pushed to an OpenTelemetry collector. */
export function ExportersCard() {
  const trpc = useTRPC();
  const exporters = useQuery(trpc.metrics.exporters.queryOptions());
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Exporters">
      <Text fw={600} size="sm">
        Exporters
      </Text>
      <Text size="xs" c="dimmed" mb="sm">
        tool.invoke.duration (histogram) and tool.invocations (counter), by tool, source and status.
      </Text>
      {exporters.error ? (
        <Alert color="red" variant="light">
          {exporters.error.message}
        </Alert>
      ) : exporters.data ? (
        <Stack gap="sm">
          <ExporterForms settings={exporters.data.settings} status={exporters.data.status} />
          <Divider />
          <TraceExportForm enabled={exporters.data.tracing.settings.otlp.enabled} savedUrl={exporters.data.tracing.settings.otlp.url} exporting={exporters.data.tracing.status.otlp?.url} />
        </Stack>
      ) : (
        <Stack gap="xs">
          <Skeleton h={24} />
          <Skeleton h={24} />
        </Stack>
      )}
    </Paper>
  );
}

function ExporterForms({ settings, status }: { settings: ExporterSettings; status: ExporterStatus }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.metrics.exporters.queryKey() });
  const prometheus = useMutation(trpc.metrics.setPrometheus.mutationOptions({ onSettled: refresh }));
  const otlp = useMutation(trpc.metrics.setOtlp.mutationOptions({ onSettled: refresh }));
  const [port, setPort] = useState<number | string>(settings.prometheus.port);
  const [url, setUrl] = useState(settings.otlp.url);
  const [intervalSeconds, setIntervalSeconds] = useState<number | string>(settings.otlp.intervalMs / 1000);

  const portValue = Number(port);
  const portValid = Number.isInteger(portValue) && portValue >= 1 && portValue <= 65535;
  const intervalMs = Math.max(1, Number(intervalSeconds) || 60) * 1000;
  const otlpChanged = url !== settings.otlp.url || intervalMs !== settings.otlp.intervalMs;

  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end" wrap="nowrap" gap="sm">
        <Switch
          label="Prometheus endpoint"
          description="Serves /metrics on 127.0.0.1 for a scraper"
          checked={settings.prometheus.enabled}
          disabled={prometheus.isPending || !portValid}
          onChange={(e) => prometheus.mutate({ enabled: e.currentTarget.checked, port: portValue })}
        />
        <Group gap={6} align="flex-end" wrap="nowrap">
          <NumberInput label="Port" size="xs" w={96} min={1} max={65535} allowDecimal={false} value={port} onChange={setPort} error={!portValid} />
          {settings.prometheus.enabled && portValid && portValue !== settings.prometheus.port && (
            <Button size="xs" variant="light" loading={prometheus.isPending} onClick={() => prometheus.mutate({ enabled: true, port: portValue })}>
              Apply
            </Button>
          )}
        </Group>
      </Group>
      {status.prometheus ? (
        <Group gap={6} wrap="nowrap">
          <Badge size="xs" color="teal" variant="light">
            Serving
          </Badge>
          <Anchor href={status.prometheus.url} target="_blank" rel="noreferrer" size="xs" ff="monospace" truncate="end">
            {status.prometheus.url}
          </Anchor>
          <CopyButton value={status.prometheus.url} label="Copy metrics URL" size="xs" />
        </Group>
      ) : (
        settings.prometheus.enabled && (
          <Text size="xs" c="dimmed">
            Enabled, but not serving in this process (the CLI does not start it; `tooldeck serve` and the desktop app do).
          </Text>
        )
      )}
      {prometheus.error && <ErrorNote error={prometheus.error} onClose={() => prometheus.reset()} />}

      <Divider />

      <Switch
        label="OTLP push"
        description="Sends the instruments to an OpenTelemetry collector over HTTP"
        checked={settings.otlp.enabled}
        disabled={otlp.isPending || (!settings.otlp.enabled && !url.trim())}
        onChange={(e) => otlp.mutate({ enabled: e.currentTarget.checked, url: url.trim(), intervalMs })}
      />
      <Group gap={6} align="flex-end" wrap="nowrap">
        <TextInput label="OTLP URL" size="xs" placeholder="http://127.0.0.1:4318/v1/metrics" value={url} onChange={(e) => setUrl(e.currentTarget.value)} style={{ flex: 1 }} />
        <NumberInput label="Every (s)" size="xs" w={84} min={1} allowDecimal={false} value={intervalSeconds} onChange={setIntervalSeconds} />
        {otlpChanged && (
          <Button size="xs" variant="light" loading={otlp.isPending} disabled={settings.otlp.enabled && !url.trim()} onClick={() => otlp.mutate({ enabled: settings.otlp.enabled, url: url.trim(), intervalMs })}>
            Save
          </Button>
        )}
      </Group>
      {status.otlp && (
        <Text size="xs" c={status.otlp.lastError ? 'red' : 'dimmed'}>
          {status.otlp.lastError
            ? `Last export failed: ${status.otlp.lastError}`
            : status.otlp.lastExportAt
              ? `Last export ${new Date(status.otlp.lastExportAt).toLocaleTimeString()}`
              : `Pushing every ${status.otlp.intervalMs / 1000} s`}
        </Text>
      )}
      {otlp.error && <ErrorNote error={otlp.error} onClose={() => otlp.reset()} />}
    </Stack>
  );
}

/** Spans of every call (validate, policy, attempts, transport) pushed to an OTLP/HTTP traces endpoint. */
function TraceExportForm({ enabled, savedUrl, exporting }: { enabled: boolean; savedUrl: string; exporting?: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const traces = useMutation(trpc.metrics.setTraceOtlp.mutationOptions({ onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.metrics.exporters.queryKey() }) }));
  const [url, setUrl] = useState(savedUrl);
  return (
    <Stack gap={6}>
      <Switch
        label="OTLP traces"
        description="Sends a trace per call (W3C trace context) to an OpenTelemetry collector over HTTP"
        checked={enabled}
        disabled={traces.isPending || (!enabled && !url.trim())}
        onChange={(e) => traces.mutate({ enabled: e.currentTarget.checked, url: url.trim() })}
      />
      <Group gap={6} align="flex-end" wrap="nowrap">
        <TextInput label="OTLP traces URL" size="xs" placeholder="http://127.0.0.1:4318/v1/traces" value={url} onChange={(e) => setUrl(e.currentTarget.value)} style={{ flex: 1 }} />
        {url.trim() !== savedUrl && (
          <Button size="xs" variant="light" loading={traces.isPending} disabled={enabled && !url.trim()} onClick={() => traces.mutate({ enabled, url: url.trim() })}>
            Save
          </Button>
        )}
      </Group>
      {exporting && (
        <Text size="xs" c="dimmed">
          Exporting spans to {exporting}
        </Text>
      )}
      {traces.error && <ErrorNote error={traces.error} onClose={() => traces.reset()} />}
    </Stack>
  );
}

function ErrorNote({ error, onClose }: { error: unknown; onClose: () => void }) {
  const app = appErrorOf(error);
  return (
    <Alert color="red" variant="light" icon={<IconAlertTriangle size={16} />} withCloseButton onClose={onClose} p="xs">
      <Text size="xs">
        <Code fz="xs">{app.code}</Code> {app.message}
      </Text>
    </Alert>
  );
}
