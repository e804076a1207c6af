import { Alert, Box, Button, Center, Checkbox, Group, Loader, Menu, NumberInput, Paper, SegmentedControl, Stack, Tabs, Text, Title } from '@mantine/core';
import { useLocalStorage } from '@mantine/hooks';
import { modals } from '@mantine/modals';
import { IconDownload, IconGauge, IconPlayerPlay, IconPlus, IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Collection, SavedRequest } from '../../../../shared/collections';
import { useTRPC } from '../../rpc/client';
import { downloadText } from '../../shell/download';
import { appErrorOf } from '../../rpc/appError';
import { LoadPanel } from './load/LoadPanel';
import { DEFAULT_LOAD_SETTINGS, LoadSettingsForm, loadSettingsProblem, toLoadOptions, type LoadSettings } from './load/LoadSettingsForm';
import { useLoadRun } from './load/useLoadRun';
import { RequestEditor } from './RequestEditor';
import { RequestList } from './RequestList';
import { RunPanel } from './RunPanel';
import { useCollectionRun } from './useCollectionRun';
import { VariablesEditor } from './VariablesEditor';
import { YamlEditor } from './YamlEditor';

export interface CollectionDetailProps {
  name: string;
  onRenamed: (name: string) => void;
  onRemoved: () => void;
}

function moved<T>(items: T[], from: number, to: number): T[] {
  const next = [...items];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}

/** One collection: its requests, variables and file, and its runs. */
export function CollectionDetail({ name, onRenamed, onRemoved }: CollectionDetailProps) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.collections.read.queryOptions({ name }));
  if (detail.isPending) {
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading collection" />
      </Center>
    );
  }
  if (detail.error) {
    return (
      <Alert color="red" variant="light" title={`Could not load ${name}`}>
        <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
          {detail.error.message}
        </Text>
      </Alert>
    );
  }
  return <LoadedCollection collection={detail.data.collection} text={detail.data.text} unsetSecrets={detail.data.unsetSecrets ?? []} onRenamed={onRenamed} onRemoved={onRemoved} />;
}

function LoadedCollection({ collection, text, unsetSecrets, onRenamed, onRemoved }: { collection: Collection; text: string; unsetSecrets: string[] } & Omit<CollectionDetailProps, 'name'>) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const name = collection.name;
  const [tab, setTab] = useState<string | null>('requests');
  const [selected, setSelected] = useState<number | 'new' | undefined>(collection.requests.length ? 0 : undefined);
  const [concurrency, setConcurrency] = useState(1);
  const [bail, setBail] = useState(false);
  const { progress, start, cancel } = useCollectionRun(name);
  const [mode, setMode] = useState<'pass' | 'load'>('pass');
  const [loadSettings, setLoadSettings] = useLocalStorage<LoadSettings>({ key: `tooldeck.load.${name}`, defaultValue: DEFAULT_LOAD_SETTINGS, getInitialValueInEffect: false });
  const load = useLoadRun(name);
  /** Which kind of run the Results tab shows: the one started last. */
  const [shown, setShown] = useState<'pass' | 'load'>('pass');
  const loadBusy = load.progress.phase === 'running' || load.progress.phase === 'preparing';

  const refresh = async (saved: { collection: Collection }) => {
    await queryClient.invalidateQueries({ queryKey: trpc.collections.list.queryKey() });
    if (saved.collection.name !== name) onRenamed(saved.collection.name);
    else await queryClient.invalidateQueries({ queryKey: trpc.collections.read.queryKey({ name }) });
  };
  const save = useMutation(trpc.collections.save.mutationOptions({ onSuccess: refresh }));
  const saveText = useMutation(trpc.collections.saveText.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(
    trpc.collections.remove.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.collections.list.queryKey() });
        onRemoved();
      },
    }),
  );

  const persist = (next: Collection) => save.mutate({ collection: next, previousName: name });
  const requests = collection.requests;

  const saveRequest = (request: SavedRequest) => {
    const next = selected === 'new' || selected === undefined ? [...requests, request] : requests.map((r, i) => (i === selected ? request : r));
    persist({ ...collection, requests: next });
    setSelected(selected === 'new' || selected === undefined ? next.length - 1 : selected);
  };
  const deleteRequest = (index: number) => {
    persist({ ...collection, requests: requests.filter((_, i) => i !== index) });
    setSelected(requests.length > 1 ? 0 : undefined);
  };
  const move = (from: number, to: number) => {
    persist({ ...collection, requests: moved(requests, from, to) });
    if (selected === from) setSelected(to);
  };
  const exportAs = async (format: 'yaml' | 'json') => downloadText(`${name}.${format}`, await queryClient.fetchQuery(trpc.collections.export.queryOptions({ name, format }, { staleTime: 0 })), format === 'json' ? 'application/json' : 'application/yaml');
  const confirmRemove = () =>
    modals.openConfirmModal({
      title: `Delete ${name}?`,
      children: <Text size="sm">The collection file is deleted; its runs stay in history.</Text>,
      labels: { confirm: 'Delete', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => remove.mutate({ name }),
    });
  /**
   * A request marked `confirmed: true` runs where policy asks for confirmation only when the operator
   * confirms it here, as the run starts: the file (perhaps from someone's repository) confirms nothing.
   */
  const withConfirmation = (begin: (confirm: boolean) => void) => {
    const marked = requests.filter((request) => request.confirmed === true);
    if (marked.length === 0) return begin(false);
    modals.openConfirmModal({
      title: 'Confirm these calls?',
      children: (
        <Stack gap="xs">
          <Text size="sm">The collection marks {marked.length === 1 ? 'this request' : 'these requests'} as confirmed: {marked.length === 1 ? 'it runs' : 'they run'} even where policy asks for confirmation.</Text>
          {marked.map((request) => (
            <Text key={request.name} size="sm" ff="monospace">
              {request.name}: {request.target} {request.tool}
            </Text>
          ))}
        </Stack>
      ),
      labels: { confirm: 'Confirm and run', cancel: 'Cancel' },
      onConfirm: () => begin(true),
    });
  };
  const run = () =>
    withConfirmation((confirm) => {
      setTab('results');
      setShown('pass');
      start({ concurrency, bail, ...(confirm ? { confirm } : {}) });
    });
  const startLoad = () =>
    withConfirmation((confirm) => {
      setTab('results');
      setShown('load');
      load.start({ ...toLoadOptions(loadSettings), ...(confirm ? { confirm } : {}) });
    });

  const current = typeof selected === 'number' ? requests[selected] : undefined;
  const editing: SavedRequest | undefined = selected === 'new' ? { name: '', target: requests.at(-1)?.target ?? 'mcp:', tool: '', arguments: {}, assertions: [{ status: 'ok' }], capture: {} } : current;
  const saveError = save.error ?? remove.error;

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <div>
          <Title order={3}>{name}</Title>
          <Text size="sm" c="dimmed">
            {collection.description ?? `${requests.length} request${requests.length === 1 ? '' : 's'}`}
          </Text>
        </div>
        <Group gap="xs">
          <Menu position="bottom-end">
            <Menu.Target>
              <Button variant="default" size="xs" leftSection={<IconDownload size={14} />}>
                Export
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item onClick={() => void exportAs('yaml')}>YAML</Menu.Item>
              <Menu.Item onClick={() => void exportAs('json')}>JSON</Menu.Item>
            </Menu.Dropdown>
          </Menu>
          <Button variant="subtle" color="red" size="xs" leftSection={<IconTrash size={14} />} onClick={confirmRemove}>
            Delete
          </Button>
        </Group>
      </Group>

      <Paper withBorder p="sm" radius="md">
        <Stack gap="sm">
          <SegmentedControl
            size="xs"
            w="fit-content"
            value={mode}
            onChange={(v) => setMode(v as 'pass' | 'load')}
            aria-label="Kind of run"
            data={[
              { value: 'pass', label: 'Run once' },
              { value: 'load', label: 'Load test' },
            ]}
          />
          {mode === 'pass' ? (
            <Group gap="md" align="flex-end" wrap="wrap">
              <Button leftSection={<IconPlayerPlay size={16} aria-hidden />} onClick={run} loading={progress.phase === 'running'} disabled={requests.length === 0}>
                Run
              </Button>
              <NumberInput size="xs" w={110} label="Concurrency" min={1} max={64} value={concurrency} onChange={(v) => setConcurrency(typeof v === 'number' && v >= 1 ? Math.min(64, Math.floor(v)) : 1)} />
              <Checkbox label="Stop at first failure" checked={bail} onChange={(e) => setBail(e.currentTarget.checked)} mb={6} />
              <Text size="xs" c="dimmed" mb={6}>
                {concurrency === 1 ? 'Requests run one after another, in order.' : `Up to ${concurrency} requests at a time.`}
              </Text>
            </Group>
          ) : (
            <Stack gap="xs">
              <Text size="xs" c="dimmed">
                Sends the requests in turn at a constant rate (an open model: a slow answer does not hold back the next arrival) through the same pipeline, for history and metrics. Latency
                runs from each call&apos;s intended send time.
              </Text>
              <LoadSettingsForm value={loadSettings} onChange={setLoadSettings} disabled={loadBusy} />
              <Group gap="sm">
                <Button leftSection={<IconGauge size={16} aria-hidden />} onClick={startLoad} loading={loadBusy} disabled={requests.length === 0 || loadSettingsProblem(loadSettings) !== undefined}>
                  Start load test
                </Button>
                <Text size="xs" c="dimmed">
                  {`About ${Math.round(loadSettings.rps * (loadSettings.durationS - loadSettings.rampUpS / 2)).toLocaleString('en-US')} calls.`}
                </Text>
              </Group>
            </Stack>
          )}
        </Stack>
      </Paper>

      {unsetSecrets.length > 0 && (
        <Alert color="yellow" variant="light" title="Secrets to set">
          This collection references secrets that are not set yet: {unsetSecrets.join(', ')}.
        </Alert>
      )}
      {saveError && (
        <Alert color="red" variant="light" title="Not saved" withCloseButton onClose={() => {
            save.reset();
            remove.reset();
          }}>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {appErrorOf(saveError).message}
          </Text>
        </Alert>
      )}

      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="requests">Requests</Tabs.Tab>
          <Tabs.Tab value="variables">Variables</Tabs.Tab>
          <Tabs.Tab value="yaml">Edit as YAML</Tabs.Tab>
          <Tabs.Tab value="results">Results</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="requests" pt="md">
          <Group align="flex-start" gap="lg" wrap="nowrap">
            <Stack w={300} gap="xs" style={{ flexShrink: 0 }}>
              {requests.length === 0 && (
                <Text size="sm" c="dimmed">
                  No requests yet. Save a call from the Tools or History section, or add one here.
                </Text>
              )}
              <RequestList requests={requests} selected={selected} onSelect={setSelected} onMove={move} />
              <Button variant="light" size="xs" leftSection={<IconPlus size={14} />} onClick={() => setSelected('new')}>
                Add request
              </Button>
            </Stack>
            <Box style={{ flex: 1, minWidth: 0 }}>
              {editing && (
                <RequestEditor
                  key={`${name}:${selected}:${editing.name}:${text.length}`}
                  request={editing}
                  otherNames={requests.filter((_, i) => i !== selected).map((r) => r.name)}
                  saving={save.isPending}
                  onSave={saveRequest}
                  onDelete={typeof selected === 'number' ? () => deleteRequest(selected) : undefined}
                />
              )}
            </Box>
          </Group>
        </Tabs.Panel>
        <Tabs.Panel value="variables" pt="md">
          <VariablesEditor key={text} variables={collection.variables} saving={save.isPending} onSave={(variables) => persist({ ...collection, variables })} />
        </Tabs.Panel>
        <Tabs.Panel value="yaml" pt="md">
          <YamlEditor key={text} text={text} saving={saveText.isPending} error={saveText.error ? appErrorOf(saveText.error).message : undefined} onSave={(t) => saveText.mutate({ text: t, previousName: name })} />
        </Tabs.Panel>
        <Tabs.Panel value="results" pt="md">
          {shown === 'load' ? <LoadPanel progress={load.progress} onStop={load.stop} /> : <RunPanel progress={progress} onCancel={cancel} />}
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
