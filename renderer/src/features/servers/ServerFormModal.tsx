import { Alert, Button, Group, Modal, PasswordInput, SegmentedControl, Stack, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { stdioLaunchLine, type McpServerConfig, type SaveServerInput, type ServerSnapshot } from '../../../../shared/mcp';
import { SECRET_PLACEHOLDER } from '../../../../shared/secrets';
import { LaunchConfirmModal, launchesToConfirm } from '../../components/LaunchConfirmModal';
import { getBridge } from '../../rpc/bridge';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';
import { fromRows, KeyValueEditor, toRows, type KeyValueRow } from './KeyValueEditor';
import { readableError } from './readableError';

type Transport = McpServerConfig['transport'];

interface Draft {
  name: string;
  transport: Transport;
  command: string;
  args: string;
  cwd: string;
  env: KeyValueRow[];
  url: string;
  headers: KeyValueRow[];
  bearerToken: string;
  enabled: boolean;
}

function draftFrom(existing?: ServerSnapshot): Draft {
  const c = existing?.config;
  return {
    name: c?.name ?? '',
    transport: c?.transport ?? 'stdio',
    command: c?.transport === 'stdio' ? c.command : '',
    args: c?.transport === 'stdio' ? c.args.join('\n') : '',
    cwd: c?.transport === 'stdio' ? (c.cwd ?? '') : '',
    // Sealed values show as *** and, left as they are, keep what the secret store holds.
    env: c?.transport === 'stdio' ? [...toRows(c.env), ...c.secretEnv.map((key) => ({ key, value: SECRET_PLACEHOLDER }))] : [],
    url: c && c.transport !== 'stdio' ? c.url : '',
    headers: c && c.transport !== 'stdio' ? [...toRows(c.headers), ...c.secretHeaders.map((key) => ({ key, value: SECRET_PLACEHOLDER }))] : [],
    bearerToken: '',
    enabled: c?.enabled ?? true,
  };
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** Splits "npx -y @scope/server --flag 'a b'" into argv, honouring simple quotes. */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  const pattern = /"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g;
  for (const m of line.matchAll(pattern)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!));
  return out;
}

export function ServerFormModal({ opened, onClose, existing, onSaved }: { opened: boolean; onClose: () => void; existing?: ServerSnapshot; onSaved?: (name: string) => void }) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState<Draft>(() => draftFrom(existing));
  const [error, setError] = useState<string>();
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const save = useMutation(trpc.mcp.save.mutationOptions());
  const editing = !!existing;
  // Stored secrets stay with the origin they were given for (the backend drops them on a move): say so before saving.
  const savedOrigin = existing && existing.config.transport !== 'stdio' ? originOf(existing.config.url) : undefined;
  const draftOrigin = draft.transport !== 'stdio' ? originOf(draft.url.trim()) : undefined;
  const movedOrigin = savedOrigin !== undefined && draftOrigin !== undefined && draftOrigin !== savedOrigin ? draftOrigin : undefined;
  /** A stdio launch the backend wants confirmed (browser mode), with the save waiting for it. */
  const [pendingLaunch, setPendingLaunch] = useState<{ line: string; input: SaveServerInput }>();

  const send = async (input: SaveServerInput) => {
    try {
      const snapshot = await save.mutateAsync(input);
      notifications.show({
        color: snapshot.state.status === 'ready' ? 'teal' : snapshot.state.status === 'error' ? 'orange' : 'blue',
        title: `${editing ? 'Saved' : 'Added'} ${snapshot.config.name}`,
        message: snapshot.state.status === 'ready' ? `Connected — ${snapshot.tools.length} tools` : (snapshot.state.message ?? 'Saved'),
      });
      onClose();
      onSaved?.(snapshot.config.name);
    } catch (e) {
      // The backend names the exact line it would run (browser mode) and waits for a confirmation.
      const line = launchesToConfirm(appErrorOf(e))?.[0];
      if (line !== undefined && line !== input.confirmedLaunchLine) {
        setPendingLaunch({ line, input });
        return;
      }
      setError(readableError(e));
    }
  };

  /**
   * The launch line browser mode will ask to confirm (a new stdio server, or one whose launch
   * changes), shown before the first save instead of after its refusal. Should the backend store
   * another line, its refusal names that one and the confirmation is asked again.
   */
  const launchToConfirm = (config: McpServerConfig): string | undefined => {
    if (config.transport !== 'stdio' || getBridge()) return undefined;
    const line = stdioLaunchLine(config);
    return existing?.config.transport === 'stdio' && stdioLaunchLine(existing.config) === line ? undefined : line;
  };

  const submit = async () => {
    setError(undefined);
    let config: unknown;
    if (draft.transport === 'stdio') {
      // A whole command line pasted into Command is split into command + arguments.
      const commandParts = splitCommandLine(draft.command.trim());
      const extraArgs = draft.args.split('\n').map((a) => a.trim()).filter(Boolean);
      config = {
        name: draft.name.trim(),
        transport: 'stdio',
        enabled: draft.enabled,
        command: commandParts[0] ?? '',
        args: [...commandParts.slice(1), ...extraArgs],
        env: fromRows(draft.env),
        ...(draft.cwd.trim() ? { cwd: draft.cwd.trim() } : {}),
      };
    } else {
      config = { name: draft.name.trim(), transport: draft.transport, enabled: draft.enabled, url: draft.url.trim(), headers: fromRows(draft.headers) };
    }
    const input: SaveServerInput = {
      config: config as McpServerConfig,
      ...(draft.transport !== 'stdio' && draft.bearerToken ? { bearerToken: draft.bearerToken } : {}),
      ...(editing ? { previousName: existing.config.name } : {}),
    };
    const line = launchToConfirm(input.config);
    if (line !== undefined) setPendingLaunch({ line, input });
    else await send(input);
  };

  return (
    <>
      <LaunchConfirmModal
        lines={pendingLaunch && [pendingLaunch.line]}
        loading={save.isPending}
        onCancel={() => setPendingLaunch(undefined)}
        onConfirm={() => {
          const pending = pendingLaunch!;
          setPendingLaunch(undefined);
          void send({ ...pending.input, confirmedLaunchLine: pending.line });
        }}
      />
      <Modal opened={opened} onClose={onClose} title={editing ? `Edit ${existing.config.name}` : 'Add MCP server'} size="lg" centered>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Stack gap="md">
            <TextInput label="Name" description="Used in tool names: <name>.<tool>" required value={draft.name} onChange={(e) => set({ name: e.currentTarget.value })} data-autofocus />
            <div>
              <Text size="sm" fw={500} mb={4} id="transport-label">
                Transport
              </Text>
              <SegmentedControl
                fullWidth
                aria-labelledby="transport-label"
                value={draft.transport}
                onChange={(v) => set({ transport: v as Transport })}
                data={[
                  { value: 'stdio', label: 'stdio' },
                  { value: 'http', label: 'Streamable HTTP' },
                  { value: 'sse', label: 'HTTP+SSE (legacy)' },
                ]}
              />
            </div>
            {draft.transport === 'stdio' ? (
              <>
                <TextInput label="Command" description="The executable, or a whole command line" placeholder="npx -y @modelcontextprotocol/server-everything stdio" required value={draft.command} onChange={(e) => set({ command: e.currentTarget.value })} ff="monospace" />
                <Textarea label="Arguments" description="One per line (added after any in Command)" autosize minRows={2} maxRows={6} value={draft.args} onChange={(e) => set({ args: e.currentTarget.value })} ff="monospace" />
                <TextInput label="Working directory" placeholder="(inherit)" value={draft.cwd} onChange={(e) => set({ cwd: e.currentTarget.value })} ff="monospace" />
                <KeyValueEditor label="Environment" rows={draft.env} onChange={(env) => set({ env })} keyPlaceholder="NAME" valuePlaceholder="value" />
                <Text size="xs" c="dimmed">
                  Every value is sealed in the secret store and shown as {SECRET_PLACEHOLDER}; leave {SECRET_PLACEHOLDER} to keep it, or type a new value. <Text span ff="monospace" size="xs">tooldeck mcp export NAME --include-secrets</Text> prints the stored values.
                </Text>
              </>
            ) : (
              <>
                <TextInput label="URL" required placeholder={draft.transport === 'sse' ? 'http://127.0.0.1:3001/sse' : 'http://127.0.0.1:3001/mcp'} value={draft.url} onChange={(e) => set({ url: e.currentTarget.value })} ff="monospace" />
                {movedOrigin && (
                  <Alert color="yellow" icon={<IconAlertTriangle />} title="Another origin" role="status">
                    The secrets stored for {savedOrigin} stay there: its header values, bearer token and sign-in are not sent to {movedOrigin}. Replace each {SECRET_PLACEHOLDER} with the value for the new address, and sign in again if it asks.
                  </Alert>
                )}
                <KeyValueEditor label="Headers" rows={draft.headers} onChange={(headers) => set({ headers })} keyPlaceholder="Header-Name" valuePlaceholder="value" />
                <Text size="xs" c="dimmed">
                  Every header value, a password in the URL and credential URL parameters are sealed in the secret store and shown as {SECRET_PLACEHOLDER}; leave {SECRET_PLACEHOLDER} to keep a value. Stored secrets are sent only to the origin they were given for: after changing the URL to another host, port or scheme, enter them again.
                </Text>
                <PasswordInput
                  label="Bearer token"
                  description={existing && existing.config.transport !== 'stdio' && existing.config.hasBearerToken ? 'A token is stored; leave empty to keep it (it is dropped if the URL moves to another origin)' : 'Kept in the secret store, never in the config file'}
                  value={draft.bearerToken}
                  onChange={(e) => set({ bearerToken: e.currentTarget.value })}
                />
              </>
            )}
            <Switch label="Connect automatically" checked={draft.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} />
            {error && (
              <Alert color="red" icon={<IconAlertTriangle />} title="Not saved" role="alert">
                {error}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={save.isPending}>
                {editing ? 'Save' : 'Add server'}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
