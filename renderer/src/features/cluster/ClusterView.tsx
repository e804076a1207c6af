import { Alert, Button, Center, Code, Group, List, Loader, Paper, Select, Stack, Text, TextInput, ThemeIcon, Title } from '@mantine/core';
import { IconCloudComputing, IconFileCode } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useEffect, useState } from 'react';
import type { ToolRef } from '../../../../shared/kubeApi';
import { ApplyYamlModal } from './ApplyYamlModal';
import { ClusterStatusBadge } from './ClusterStatusBadge';
import { InventoryTable } from './InventoryTable';
import { GatewayPanel } from './GatewayPanel';
import { OperatorPanel } from './OperatorPanel';
import { ToolDetailDrawer } from './ToolDetailDrawer';
import { useKubeTRPC } from './useKubeTRPC';

const ALL = '*';

export function ClusterView() {
  const kube = useKubeTRPC();
  const queryClient = useQueryClient();
  const [pathDraft, setPathDraft] = useState('');
  const [kubeconfig, setKubeconfig] = useState<string>();
  const [namespace, setNamespace] = useState<string>();
  const [opened, setOpened] = useState<ToolRef>();
  const [applying, setApplying] = useState(false);

  const contexts = useQuery(kube.contexts.queryOptions({ kubeconfig }));
  const status = useQuery({ ...kube.status.queryOptions(), refetchInterval: 15_000 });
  const connected = status.data?.state === 'connected';
  const namespaces = useQuery({ ...kube.namespaces.queryOptions(), enabled: connected });
  const inventory = useSubscription(kube.inventory.subscriptionOptions({ namespace }));
  const select = useMutation(
    kube.select.mutationOptions({
      onSuccess: (next) => {
        queryClient.setQueryData(kube.status.queryKey(), next);
        setNamespace(undefined);
        void queryClient.invalidateQueries({ queryKey: kube.namespaces.queryKey() });
        void queryClient.invalidateQueries({ queryKey: kube.contexts.queryKey() });
      },
    }),
  );

  // The YAML editors' cluster schemas follow the connection: fetched again once it changed.
  const connection = status.data && `${status.data.state} ${status.data.server ?? ''} ${status.data.context ?? ''}`;
  useEffect(() => {
    if (connection) void queryClient.invalidateQueries({ queryKey: kube.schemas.queryKey() });
  }, [connection, queryClient, kube.schemas]);
  useEffect(() => {
    if (contexts.data?.kubeconfig && !kubeconfig) setPathDraft(contexts.data.kubeconfig);
  }, [contexts.data?.kubeconfig, kubeconfig]);
  // Every inventory event may have changed the open tool, so its detail is fetched again.
  useEffect(() => {
    if (inventory.data) void queryClient.invalidateQueries({ queryKey: kube.tool.queryKey() });
  }, [inventory.data, queryClient, kube.tool]);

  const list = contexts.data;
  const unconfigured = list && (!list.exists || list.contexts.length === 0);
  const tools = inventory.data?.tools ?? [];

  return (
    <Stack gap="md" h="100%">
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={2}>Cluster</Title>
          <Text c="dimmed" size="sm">
            LanguageTools in a Kubernetes cluster, live from its watches. Apply YAML with server-side apply as tooldeck.
          </Text>
        </div>
        <Group gap="xs">
          <ClusterStatusBadge status={status.data} />
          <Button size="sm" leftSection={<IconFileCode size={16} />} onClick={() => setApplying(true)} disabled={!connected}>
            Apply YAML
          </Button>
        </Group>
      </Group>
      <Group align="flex-end" gap="sm">
        <TextInput
          label="Kubeconfig"
          value={pathDraft}
          onChange={(e) => setPathDraft(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && setKubeconfig(pathDraft.trim() || undefined)}
          w={360}
          placeholder="~/.kube/config"
        />
        <Button variant="default" onClick={() => setKubeconfig(pathDraft.trim() || undefined)}>
          Load
        </Button>
        <Select
          label="Context"
          data={(list?.contexts ?? []).map((c) => ({ value: c.name, label: c.server ? `${c.name} (${c.server})` : c.name }))}
          value={status.data?.kubeconfig === list?.kubeconfig ? (status.data?.context ?? list?.current ?? null) : (list?.current ?? null)}
          onChange={(context) => context && select.mutate({ kubeconfig: list?.kubeconfig, context })}
          disabled={!list?.contexts.length}
          w={380}
          allowDeselect={false}
        />
        <Select
          label="Namespace"
          data={[{ value: ALL, label: 'All namespaces' }, ...(namespaces.data ?? []).map((n) => ({ value: n, label: n }))]}
          value={namespace ?? ALL}
          onChange={(value) => setNamespace(!value || value === ALL ? undefined : value)}
          disabled={!connected}
          w={220}
          allowDeselect={false}
        />
      </Group>
      {list?.error && <Alert color="red">{list.error}</Alert>}
      {select.error && <Alert color="red">{select.error.message}</Alert>}
      {inventory.error && <Alert color="red">{inventory.error.message}</Alert>}
      {connected && <OperatorPanel />}
      {connected && <GatewayPanel />}
      {unconfigured ? (
        <NoCluster kubeconfig={list.kubeconfig} />
      ) : status.data && status.data.state !== 'connected' ? (
        <Alert color="red" title="The cluster does not answer">
          {status.data.message ?? 'No answer from the apiserver.'}
        </Alert>
      ) : !inventory.data?.synced ? (
        <Center py="xl">
          <Loader aria-label="Loading the inventory" />
        </Center>
      ) : tools.length === 0 ? (
        <Paper withBorder p="lg" radius="md">
          <Text size="sm" c="dimmed">
            No LanguageTools {namespace ? `in ${namespace}` : 'in this cluster'}. Apply one with “Apply YAML”, or with <Code>tooldeck apply -f tool.yaml --target cluster</Code>.
          </Text>
        </Paper>
      ) : (
        <Paper withBorder radius="md" p="xs">
          <Text size="xs" c="dimmed" px="xs" pb={4}>
            {plural(tools.length, 'tool')} · {plural(inventory.data.agents, 'agent')}
          </Text>
          <InventoryTable tools={tools} showNamespace={!namespace} onOpen={(t) => setOpened({ namespace: t.namespace, name: t.name })} />
        </Paper>
      )}
      <ToolDetailDrawer tool={opened} onClose={() => setOpened(undefined)} />
      {applying && <ApplyYamlModal opened onClose={() => setApplying(false)} />}
    </Stack>
  );
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function NoCluster({ kubeconfig }: { kubeconfig: string }) {
  return (
    <Paper withBorder p="xl" radius="lg">
      <Stack align="center" gap="sm" py="lg">
        <ThemeIcon size={56} radius="xl" variant="light">
          <IconCloudComputing size={30} />
        </ThemeIcon>
        <Title order={4}>No cluster configured</Title>
        <Text c="dimmed" size="sm" ta="center" maw={560}>
          Nothing usable at <Code>{kubeconfig}</Code>. To point Tooldeck at a cluster:
        </Text>
        <List size="sm" maw={560}>
          <List.Item>enter the path of a kubeconfig above and press Load, or</List.Item>
          <List.Item>
            start Tooldeck with <Code>KUBECONFIG</Code> set, or put the file at <Code>~/.kube/config</Code>;
          </List.Item>
          <List.Item>
            then run <Code>tooldeck kube install</Code> to install the langop.io CRDs and an operator that reconciles in the cluster (or <Code>tooldeck kube reconcile</Code> to
            reconcile from this machine).
          </List.Item>
        </List>
        <Text c="dimmed" size="sm" ta="center" maw={560}>
          No cluster is needed for the local embedded target: the Servers, Tools and Resources sections work without one.
        </Text>
      </Stack>
    </Paper>
  );
}
