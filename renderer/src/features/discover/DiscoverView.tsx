import { Alert, Badge, Button, Center, Code, FileInput, Group, Loader, Modal, Paper, PasswordInput, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconCloudOff, IconPackage, IconSearch, IconWorld } from '@tabler/icons-react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ServerJson, type InstallPreview, type InstallRequest, type RegistryEntry, type RegistryInput } from '../../../../shared/mcpRegistry';
import { CONFIRM_LAUNCH_STEP } from '../../../../shared/errors';
import { EmptyState } from '../../components/EmptyState';
import { McpIconImage } from '../../components/McpIconImage';
import type { McpIcon } from '../../../../shared/icons';
import { appErrorOf } from '../../rpc/appError';
import { useTRPC } from '../../rpc/client';
import { RegistryUpdatesNotice } from './RegistryUpdatesNotice';

const INSTALLABLE = ['npm', 'pypi', 'oci', 'nuget', 'mcpb'];

/** A server.json's icons as MCP icons (the same shape; a theme other than light or dark is dropped). Shown through the console's guarded icon fetch. */
function iconsOf(server: ServerJson): McpIcon[] {
  return (server.icons ?? []).map(({ theme, ...icon }) => (theme === 'light' || theme === 'dark' ? { ...icon, theme } : icon));
}

/**
 * Find servers in MCP registries and install them: search (the official registry and any added
 * one, cursor paging), a server's detail with its status, versions, packages and remotes, and an
 * install form generated from its server.json. Installing shows the exact command line (or URL)
 * first, every value the registry supplies in plain text; nothing is saved or started until it is
 * confirmed, and what the user types for a secret input is sealed in the secret store. When no
 * registry answers, a server.json at hand installs the same way.
 */
export function DiscoverView() {
  const trpc = useTRPC();
  const sources = useQuery(trpc.mcpRegistry.sources.queryOptions());
  const enabled = sources.data?.filter((source) => source.enabled) ?? [];
  const [chosenRegistry, setChosenRegistry] = useState<string | null>(null);
  const registry = chosenRegistry ?? enabled[0]?.url;
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<string | undefined>();
  const pages = useInfiniteQuery({
    ...trpc.mcpRegistry.search.infiniteQueryOptions({ registry, search: query || undefined, limit: 30 }, { getNextPageParam: (page) => page.nextCursor }),
    enabled: registry !== undefined,
  });
  const entries = pages.data?.pages.flatMap((page) => page.servers) ?? [];
  const lastPage = pages.data?.pages.at(-1);
  const search = (event: FormEvent) => {
    event.preventDefault();
    setQuery(typed.trim());
    setSelected(undefined);
  };

  return (
    <Stack gap="lg">
      <div>
        <Title order={2}>Discover</Title>
        <Text c="dimmed" size="sm" maw={760}>
          Servers published in MCP registries. Installing pins the version, shows the exact command line with every value the registry supplies before anything runs, and seals the secrets you type in the secret store.
        </Text>
      </div>
      <RegistryUpdatesNotice />
      <Registries />
      <form onSubmit={search}>
        <Group align="flex-end">
          <Select
            label="Registry"
            data={enabled.map((source) => source.url)}
            value={registry ?? null}
            onChange={(value) => {
              setChosenRegistry(value);
              setSelected(undefined);
            }}
            w={360}
            allowDeselect={false}
          />
          <TextInput label="Search" placeholder="Server name" value={typed} onChange={(event) => setTyped(event.currentTarget.value)} leftSection={<IconSearch size={16} />} w={320} />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      {lastPage?.offline && (
        <Alert color="yellow" icon={<IconCloudOff size={18} />} title="Offline: from the cache">
          {lastPage.registry} could not be reached ({lastPage.reason}); this is the answer kept from {new Date(lastPage.fetchedAt).toLocaleString()}.
        </Alert>
      )}
      {pages.error && (
        <Alert color="red" title="The registry could not be searched">
          {appErrorOf(pages.error).message}
        </Alert>
      )}
      {(pages.error || (!registry && sources.data)) && <InstallFromFile />}
      {!registry && sources.data ? (
        <EmptyState icon={<IconWorld size={30} />} title="Every registry is off" description="Turn a registry on, or add one, to search it." actions={null} />
      ) : (
        <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
          <Stack gap="xs" aria-label="Servers found">
            {pages.isLoading && (
              <Center py="xl">
                <Loader aria-label="Searching" />
              </Center>
            )}
            {!pages.isLoading && entries.length === 0 && !pages.error && <Text c="dimmed">No servers{query ? ` matching “${query}”` : ''}.</Text>}
            {entries.map((entry) => (
              <UnstyledButton key={`${entry.server.name}@${entry.server.version}`} onClick={() => setSelected(entry.server.name)} aria-label={entry.server.name} aria-pressed={selected === entry.server.name}>
                <Paper withBorder p="sm" radius="md" bg={selected === entry.server.name ? 'var(--mantine-color-default-hover)' : undefined}>
                  <Group justify="space-between" wrap="nowrap">
                    <Text fw={600} truncate>
                      {entry.server.title ?? entry.server.name}
                    </Text>
                    <Group gap={4} wrap="nowrap">
                      <StatusBadge entry={entry} />
                      <Badge variant="light" color="gray">
                        {entry.server.version}
                      </Badge>
                    </Group>
                  </Group>
                  <Text size="xs" c="dimmed" truncate>
                    {entry.server.name}
                  </Text>
                  <Text size="sm" lineClamp={2}>
                    {entry.server.description}
                  </Text>
                </Paper>
              </UnstyledButton>
            ))}
            {(lastPage?.skipped ?? 0) > 0 && <Text size="xs" c="dimmed">{lastPage!.skipped} entries broke the schema or a size bound and were left out.</Text>}
            {pages.hasNextPage && (
              <Button variant="default" onClick={() => void pages.fetchNextPage()} loading={pages.isFetchingNextPage}>
                More
              </Button>
            )}
          </Stack>
          {selected && registry ? <ServerDetail key={`${registry} ${selected}`} name={selected} registry={registry} /> : <Text c="dimmed">Choose a server to see its detail and install it.</Text>}
        </SimpleGrid>
      )}
    </Stack>
  );
}

function StatusBadge({ entry }: { entry: RegistryEntry }) {
  const status = entry.meta?.status;
  if (status !== 'deprecated' && status !== 'deleted') return null;
  return (
    <Badge color={status === 'deleted' ? 'red' : 'orange'} variant="light">
      {status}
    </Badge>
  );
}

function Registries() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const sources = useQuery(trpc.mcpRegistry.sources.queryOptions());
  const [url, setUrl] = useState('');
  const refresh = (data: unknown) => queryClient.setQueryData(trpc.mcpRegistry.sources.queryKey(), data as never);
  const add = useMutation(trpc.mcpRegistry.addSource.mutationOptions({ onSuccess: (data) => (refresh(data), setUrl('')) }));
  const toggle = useMutation(trpc.mcpRegistry.setSourceEnabled.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.mcpRegistry.removeSource.mutationOptions({ onSuccess: refresh }));
  return (
    <Paper withBorder p="sm" radius="md" aria-label="Registries">
      <Stack gap="xs">
        {sources.data?.map((source) => (
          <Group key={source.url} justify="space-between">
            <Switch label={`${source.url}${source.official ? ' (official)' : ''}`} checked={source.enabled} onChange={(event) => toggle.mutate({ url: source.url, enabled: event.currentTarget.checked })} />
            {!source.official && (
              <Button size="xs" variant="subtle" color="red" onClick={() => remove.mutate({ url: source.url })}>
                Remove
              </Button>
            )}
          </Group>
        ))}
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (url.trim()) add.mutate({ url: url.trim() });
          }}
        >
          <Group align="flex-end">
            <TextInput label="Add a registry" placeholder="https://registry.example.com" value={url} onChange={(event) => setUrl(event.currentTarget.value)} w={360} error={add.error ? appErrorOf(add.error).message : undefined} />
            <Button type="submit" variant="default" loading={add.isPending}>
              Add
            </Button>
          </Group>
        </form>
      </Stack>
    </Paper>
  );
}

function ServerDetail({ name, registry }: { name: string; registry: string }) {
  const trpc = useTRPC();
  const [version, setVersion] = useState<string | undefined>();
  const shown = useQuery(trpc.mcpRegistry.show.queryOptions({ name, registry, ...(version ? { version } : {}) }));
  if (shown.error) {
    return (
      <Alert color="red" title={`${name} could not be read`}>
        {appErrorOf(shown.error).message}
      </Alert>
    );
  }
  if (!shown.data) {
    return (
      <Center py="xl">
        <Loader aria-label="Loading the server" />
      </Center>
    );
  }
  const { entry, versions } = shown.data;
  const s = entry.server;
  return (
    <Paper withBorder p="md" radius="md" aria-label={`Server ${s.name}`}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Group gap="sm" align="flex-start" wrap="nowrap">
            <McpIconImage icons={iconsOf(s)} size={32} label={`Icon of ${s.name}`} />
            <div>
              <Title order={3}>{s.title ?? s.name}</Title>
              <Text size="xs" c="dimmed">
                {s.name}
              </Text>
            </div>
          </Group>
          <Select
            aria-label="Version"
            data={versions.versions.map((v) => ({ value: v.server.version, label: `${v.server.version}${v.meta?.isLatest ? ' (latest)' : ''}${v.meta?.status && v.meta.status !== 'active' ? ` — ${v.meta.status}` : ''}` }))}
            value={s.version}
            onChange={(value) => setVersion(value ?? undefined)}
            w={220}
            allowDeselect={false}
          />
        </Group>
        {(entry.meta?.status === 'deprecated' || entry.meta?.status === 'deleted') && (
          <Alert color={entry.meta.status === 'deleted' ? 'red' : 'orange'} icon={<IconAlertTriangle size={18} />} title={`This version is ${entry.meta.status}`}>
            {entry.meta.statusMessage ?? (entry.meta.status === 'deleted' ? 'It is not installed.' : 'Prefer another version.')}
          </Alert>
        )}
        <Text size="sm">{s.description}</Text>
        {s.repository?.url && (
          <Text size="sm">
            Repository: <Code>{s.repository.url}</Code>
          </Text>
        )}
        {s.websiteUrl && (
          <Text size="sm">
            Website: <Code>{s.websiteUrl}</Code>
          </Text>
        )}
        {entry.meta?.status !== 'deleted' && <InstallForm server={s} registry={registry} />}
      </Stack>
    </Paper>
  );
}

interface Field {
  key: string;
  group: 'env' | 'args' | 'namedArgs' | 'variables' | 'headers';
  label: string;
  input: RegistryInput;
}

/** The fields a target asks for: inputs without a fixed value, each as the server.json describes it. */
function fieldsOf(server: ServerJson, target: string): Field[] {
  const [kind, index] = target.split(':') as ['package' | 'remote', string];
  if (kind === 'remote') {
    const remote = server.remotes?.[Number(index)];
    return [
      ...Object.entries(remote?.variables ?? {}).map(([name, input]) => ({ key: `variables:${name}`, group: 'variables' as const, label: `URL variable ${name}`, input })),
      ...(remote?.headers ?? []).filter((header) => header.value === undefined).map((header) => ({ key: `headers:${header.name}`, group: 'headers' as const, label: `Header ${header.name}`, input: header })),
    ];
  }
  const pkg = server.packages?.[Number(index)];
  return [
    ...(pkg?.environmentVariables ?? []).filter((env) => env.value === undefined).map((env) => ({ key: `env:${env.name}`, group: 'env' as const, label: env.name, input: env })),
    ...(pkg?.packageArguments ?? [])
      .filter((arg) => arg.value === undefined)
      .map((arg, i) => (arg.type === 'named' ? { key: `namedArgs:${arg.name ?? ''}`, group: 'namedArgs' as const, label: `Argument ${arg.name ?? ''}`, input: arg } : { key: `args:${i}`, group: 'args' as const, label: `Argument ${arg.valueHint ?? i + 1}`, input: arg })),
  ];
}

/** A server.json the user has at hand, installed through the same form and confirmation when no registry answers. */
function InstallFromFile() {
  const [loaded, setLoaded] = useState<{ text: string; server: ServerJson } | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const read = async (file: File | null) => {
    setLoaded(undefined);
    setProblem(undefined);
    if (!file) return;
    const text = await file.text();
    try {
      const parsed = ServerJson.safeParse(JSON.parse(text));
      if (parsed.success) setLoaded({ text, server: parsed.data });
      else setProblem(`${file.name} is not a usable server.json: ${parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(document)'}: ${issue.message}`).join('; ')}`);
    } catch (error) {
      setProblem(`${file.name} is not JSON: ${(error as Error).message}`);
    }
  };
  return (
    <Paper withBorder p="md" radius="md" aria-label="Install from a server.json">
      <Stack gap="xs">
        <Title order={4}>Install from a server.json</Title>
        <Text size="sm" c="dimmed">
          A server.json you have (from a publisher&apos;s repository, or a colleague) installs as a registry&apos;s entry would: the same checks, the exact command line confirmed first.
        </Text>
        <FileInput label="server.json file" accept="application/json,.json" clearable onChange={(file) => void read(file)} w={360} />
        {problem && <Alert color="red">{problem}</Alert>}
        {loaded && <InstallForm server={loaded.server} registry={undefined} document={loaded.text} />}
      </Stack>
    </Paper>
  );
}

function InstallForm({ server, registry, document }: { server: ServerJson; registry: string | undefined; document?: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const targets = [
    ...(server.packages ?? []).flatMap((pkg, i) => (INSTALLABLE.includes(pkg.registryType) && pkg.transport.type === 'stdio' ? [{ value: `package:${i}`, label: `${pkg.registryType} ${pkg.identifier}${pkg.version ? ` ${pkg.version}` : ''}` }] : [])),
    ...(server.remotes ?? []).map((remote, i) => ({ value: `remote:${i}`, label: `remote ${remote.type} ${remote.url ?? ''}` })),
  ];
  const [target, setTarget] = useState(targets[0]?.value);
  const [values, setValues] = useState<Record<string, string>>({});
  const [serverName, setServerName] = useState('');
  const [allowEnv, setAllowEnv] = useState('');
  const [preview, setPreview] = useState<InstallPreview | undefined>();
  /** A bundle's command line, known once it is downloaded and verified (install's first answer). */
  const [bundleLine, setBundleLine] = useState<string | undefined>();
  const fields = target ? fieldsOf(server, target) : [];

  const request = (): InstallRequest => {
    const [kind, index] = (target ?? 'package:0').split(':');
    const choice: InstallRequest['choice'] = { env: {}, args: [], namedArgs: {}, variables: {}, headers: {} };
    for (const field of fields) {
      const value = values[field.key] ?? '';
      if (value === '') continue;
      const name = field.key.slice(field.key.indexOf(':') + 1);
      if (field.group === 'args') choice.args!.push(value);
      else choice[field.group]![name] = value;
    }
    const allowed = allowEnv.split(/[\s,]+/).filter(Boolean);
    return {
      name: server.name,
      ...(document !== undefined ? { document } : { registry, version: server.version }),
      choice: { ...choice, ...(allowed.length ? { allowEnv: allowed } : {}), ...(serverName.trim() ? { serverName: serverName.trim() } : {}), ...(kind === 'remote' ? { remoteIndex: Number(index) } : { packageIndex: Number(index) }) },
    };
  };
  const review = useMutation(trpc.mcpRegistry.preview.mutationOptions({ onSuccess: (shown) => (setBundleLine(undefined), setPreview(shown)) }));
  const install = useMutation(
    trpc.mcpRegistry.install.mutationOptions({
      onError: (failed) => {
        // A verified bundle's command line comes back to be confirmed like any other.
        const refusal = appErrorOf(failed);
        if (preview?.bundle && refusal.step === CONFIRM_LAUNCH_STEP && refusal.details?.[0]) {
          setBundleLine(refusal.details[0]);
          install.reset();
        }
      },
      onSuccess: (installed) => {
        setPreview(undefined);
        setBundleLine(undefined);
        void queryClient.invalidateQueries({ queryKey: trpc.mcp.pathKey() });
        notifications.show({ color: 'teal', title: `Installed ${installed.serverName}`, message: `${installed.entry.server.name} ${installed.entry.server.version} is saved; it appears under Servers with its tools.` });
      },
    }),
  );
  const error = review.error ?? install.error;
  const confirm = () => {
    if (!preview) return;
    const line = preview.bundle ? bundleLine : preview.transport === 'stdio' ? preview.launch : undefined;
    install.mutate({ ...request(), previewHash: preview.planHash, ...(line !== undefined ? { confirmedLaunchLine: line } : {}) });
  };

  if (targets.length === 0) return <Text c="dimmed">This server offers nothing Tooldeck installs (npm, pypi, oci, nuget and mcpb packages over stdio, and remotes).</Text>;
  return (
    <form
      aria-label="Install"
      onSubmit={(event) => {
        event.preventDefault();
        review.mutate(request());
      }}
    >
      <Stack gap="xs">
        <Title order={4}>
          <IconPackage size={18} /> Install
        </Title>
        <Select label="Install" data={targets} value={target ?? null} onChange={(value) => (setTarget(value ?? undefined), setValues({}))} allowDeselect={false} />
        <TextInput label="Saved as" placeholder="(from the registry name)" value={serverName} onChange={(event) => setServerName(event.currentTarget.value)} />
        <TextInput
          label="Let the registry set"
          description="Loader and toolchain variables (NODE_OPTIONS, npm_config_*, PATH…) change which code runs: a registry that sets one is refused unless you name it here. It is then shown and flagged in the line to confirm."
          placeholder="(none)"
          value={allowEnv}
          onChange={(event) => setAllowEnv(event.currentTarget.value)}
        />
        {fields.map((field) => (
          <InputField key={field.key} field={field} value={values[field.key] ?? ''} onChange={(value) => setValues((current) => ({ ...current, [field.key]: value }))} />
        ))}
        {error && (
          <Alert color="red" title="Not installed">
            {appErrorOf(error).message}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button type="submit" loading={review.isPending}>
            Review and install
          </Button>
        </Group>
      </Stack>
      <Modal opened={preview !== undefined} onClose={() => setPreview(undefined)} title={preview?.bundle && !bundleLine ? 'Download this bundle?' : preview?.transport === 'stdio' ? 'Run this command?' : 'Connect to this server?'} size="lg" centered>
        {preview && (
          <Stack>
            <Text size="sm">
              {preview.bundle && !bundleLine
                ? `${preview.serverName} is an mcpb bundle: it is downloaded and checked against its sha256 first; the command its manifest runs is shown to confirm before anything is written or run.`
                : preview.transport === 'stdio'
                  ? `${preview.serverName} runs this command on this machine, as your user, now and whenever it connects. Values from the registry are shown as they are; the secrets you typed are ***:`
                  : `${preview.serverName} connects to this URL, sending these headers (the secrets you typed as ***):`}
            </Text>
            <Code block aria-label={preview.bundle && !bundleLine ? 'Download' : preview.transport === 'stdio' ? 'Command line' : 'URL'} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
              {bundleLine ?? preview.launch}
            </Code>
            {preview.headers?.length ? (
              <Code block aria-label="Headers" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                {preview.headers.join('\n')}
              </Code>
            ) : null}
            {preview.flagged?.map((name) => (
              <Alert key={name} color="red" icon={<IconAlertTriangle size={16} />} title={`${name} changes which code runs`}>
                You let the registry set it: its value is in the line above.
              </Alert>
            ))}
            {preview.card && (
              <Paper withBorder p="xs" radius="sm" aria-label="Server card">
                <Text size="sm" fw={600}>
                  Its server card (SEP-2127, draft): {preview.card.title ?? preview.card.name ?? '(no name)'} {preview.card.version ?? ''}
                </Text>
                <Text size="sm">{preview.card.tools ? `Declares ${preview.card.tools.length} tools: ${preview.card.tools.map((tool) => tool.name).join(', ')}` : 'Lists no tools.'}</Text>
                <Text size="xs" c="dimmed">
                  A card is the server&apos;s own claim; after connecting, its tools are as tools/list says.
                </Text>
              </Paper>
            )}
            {preview.warnings.map((warning) => (
              <Alert key={warning} color="orange" icon={<IconAlertTriangle size={16} />}>
                {warning}
              </Alert>
            ))}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setPreview(undefined)}>
                Cancel
              </Button>
              <Button color="orange" loading={install.isPending} onClick={confirm}>
                {preview.bundle && !bundleLine ? 'Download and verify' : 'Install'}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </form>
  );
}

function InputField({ field, value, onChange }: { field: Field; value: string; onChange: (value: string) => void }) {
  const { input } = field;
  const common = { label: field.label, description: input.description, required: input.isRequired, placeholder: input.placeholder ?? input.default };
  if (input.choices?.length) return <Select {...common} data={input.choices} value={value || input.default || null} onChange={(next) => onChange(next ?? '')} />;
  if (input.isSecret) return <PasswordInput {...common} value={value} onChange={(event) => onChange(event.currentTarget.value)} />;
  return <TextInput {...common} value={value} onChange={(event) => onChange(event.currentTarget.value)} />;
}
