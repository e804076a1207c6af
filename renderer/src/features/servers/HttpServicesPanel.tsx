import { ActionIcon, Alert, Badge, Button, Group, Modal, Paper, PasswordInput, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconApi, IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../../rpc/client';
import { readableError } from './readableError';

/** Imported claw.describe descriptors: each service's HTTP tools sit in the registry beside MCP tools. */
export function HttpServicesPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const services = useQuery(trpc.http.list.queryOptions());
  const remove = useMutation(trpc.http.remove.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.http.list.queryFilter()) }));
  const [importing, setImporting] = useState(false);

  return (
    <Paper withBorder p="md" aria-label="HTTP services">
      <Group justify="space-between" mb="xs">
        <div>
          <Title order={5}>HTTP services</Title>
          <Text size="xs" c="dimmed">
            Tools described by a Clawdapus <code>claw.describe</code> descriptor, called over plain HTTP.
          </Text>
        </div>
        <Button size="xs" variant="default" leftSection={<IconApi size={14} />} onClick={() => setImporting(true)}>
          Import descriptor
        </Button>
      </Group>
      {(services.data ?? []).length === 0 ? (
        <Text size="sm" c="dimmed">
          None imported.
        </Text>
      ) : (
        <Stack gap={6}>
          {services.data!.map((s) => (
            <Group key={s.service} justify="space-between" wrap="nowrap">
              <div style={{ minWidth: 0 }}>
                <Group gap={6}>
                  <Text fw={600} size="sm">
                    {s.service}
                  </Text>
                  {s.error ? (
                    <Badge color="red" size="xs">
                      error
                    </Badge>
                  ) : (
                    <Badge color="cyan" size="xs" variant="light">
                      {s.tools.length} tools
                    </Badge>
                  )}
                </Group>
                <Text size="xs" c={s.error ? 'red' : 'dimmed'} truncate="end">
                  {s.error ?? `${s.baseUrl}${s.authEnv ? ` · token from $${s.authEnv}` : ''} · ${s.tools.join(', ')}`}
                </Text>
              </div>
              <Tooltip label="Remove">
                <ActionIcon variant="subtle" color="gray" aria-label={`Remove ${s.service}`} onClick={() => remove.mutate({ service: s.service })}>
                  <IconTrash size={14} />
                </ActionIcon>
              </Tooltip>
            </Group>
          ))}
        </Stack>
      )}
      {importing && <ImportDescriptorModal onClose={() => setImporting(false)} />}
    </Paper>
  );
}

function ImportDescriptorModal({ onClose }: { onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const add = useMutation(trpc.http.add.mutationOptions());
  const [service, setService] = useState('');
  const [location, setLocation] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [token, setToken] = useState('');
  const submit = async () => {
    const view = await add.mutateAsync({ service: service.trim(), location: location.trim(), ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}), ...(token ? { token } : {}) });
    await queryClient.invalidateQueries(trpc.http.list.queryFilter());
    const sends = view.authEnv ? `; their calls send $${view.authEnv} as the token` : '';
    notifications.show({ color: 'teal', title: `Imported ${view.service}`, message: `${view.tools.length} HTTP tools are in the registry${sends}` });
    onClose();
  };
  return (
    <Modal opened onClose={onClose} title="Import a claw.describe descriptor" centered size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit().catch(() => undefined);
        }}
      >
        <Stack>
          <TextInput label="Service name" description="Tools become http:<service>.<tool>" required value={service} onChange={(e) => setService(e.currentTarget.value)} />
          <TextInput label="Descriptor" description="A file path or an http(s) URL" required value={location} onChange={(e) => setLocation(e.currentTarget.value)} ff="monospace" />
          <TextInput label="Base URL" description="Where the tools are called (defaults to the descriptor URL's origin)" value={baseUrl} onChange={(e) => setBaseUrl(e.currentTarget.value)} ff="monospace" />
          <PasswordInput label="Bearer token" description="Used when the descriptor names no environment variable; kept in the secret store" value={token} onChange={(e) => setToken(e.currentTarget.value)} />
          {add.error && (
            <Alert color="red" title="Not imported" role="alert">
              {readableError(add.error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={add.isPending}>
              Import
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
