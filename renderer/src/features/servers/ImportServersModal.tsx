import { Alert, Badge, Button, Checkbox, Code, FileButton, Group, List, Modal, Stack, Table, Text, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconFileImport } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../../rpc/client';
import { INPUT_LIMITS } from '../../../../shared/inputLimits';
import { readPickedFile } from '../../components/readPickedFile';

const EXAMPLE = `{
  "mcpServers": {
    "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] },
    "remote": { "url": "https://example.com/mcp", "headers": { "X-Team": "ops" } }
  }
}`;

/** Paste or open an mcp.json (Claude Desktop, Cursor, VS Code, Inspector) or a RockBot config. */
export function ImportServersModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const [text, setText] = useState('');
  const [replace, setReplace] = useState(false);
  const preview = useMutation(trpc.mcp.previewImport.mutationOptions());
  const importServers = useMutation(trpc.mcp.import.mutationOptions());
  const summary = importServers.data;
  const reviewed = preview.data;

  /** Nothing is saved (or started) before the operator has seen every server and command line. */
  const review = async () => {
    importServers.reset();
    await preview.mutateAsync({ text });
  };

  const submit = async () => {
    const confirmedLaunchLines = reviewed!.servers.filter((s) => s.transport === 'stdio').map((s) => s.launch);
    const result = await importServers.mutateAsync({ text, replace, confirmedLaunchLines });
    preview.reset();
    if (result.skipped.length === 0) {
      notifications.show({ color: 'teal', title: 'Imported', message: `${result.added.length + result.replaced.length} server(s) from ${result.format}` });
      onClose();
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title="Import servers" size="lg" centered>
      <Stack>
        <Text size="sm" c="dimmed">
          The <code>mcpServers</code> file of Claude Desktop, Cursor and the MCP Inspector, VS Code&apos;s <code>servers</code>, or RockBot&apos;s <code>{'{"Mcp": {"Servers": […]}}'}</code>. Tokens and secret-looking environment values go to the secret store.
        </Text>
        <Textarea
          label="Configuration JSON"
          placeholder={EXAMPLE}
          autosize
          minRows={8}
          maxRows={16}
          value={text}
          onChange={(e) => {
            setText(e.currentTarget.value);
            preview.reset();
          }}
          ff="monospace"
          styles={{ input: { fontSize: 12 } }}
        />
        <Group justify="space-between">
          <FileButton accept="application/json,.json" onChange={(file) => void readPickedFile(file, INPUT_LIMITS.serversFile).then((text) => text !== undefined && setText(text))}>
            {(props) => (
              <Button variant="default" size="xs" leftSection={<IconFileImport size={14} />} {...props}>
                Open file…
              </Button>
            )}
          </FileButton>
          <Checkbox label="Replace servers with the same name" checked={replace} onChange={(e) => setReplace(e.currentTarget.checked)} />
        </Group>
        {preview.error && (
          <Alert color="red" title="Cannot read this configuration" role="alert">
            {preview.error.message}
          </Alert>
        )}
        {reviewed && (
          <Stack gap={6}>
            <Text size="sm" fw={500}>
              Importing will save {reviewed.servers.length} server(s){reviewed.servers.some((s) => s.transport === 'stdio') ? ' and run these commands on this machine' : ''}:
            </Text>
            <Table withTableBorder aria-label="Servers to import" fz="xs">
              <Table.Tbody>
                {reviewed.servers.map((server) => (
                  <Table.Tr key={server.name}>
                    <Table.Td w={140}>
                      <b>{server.name}</b> {server.exists && <Badge size="xs" color={replace ? 'orange' : 'gray'}>{replace ? 'replaces' : 'exists: skipped'}</Badge>}
                    </Table.Td>
                    <Table.Td w={60}>{server.transport}</Table.Td>
                    <Table.Td>
                      <Code style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>{server.launch}</Code>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            {reviewed.skipped.length > 0 && (
              <Text size="xs" c="orange">
                Not importable: {reviewed.skipped.map((s) => `${s.name} (${s.reason})`).join('; ')}
              </Text>
            )}
          </Stack>
        )}
        {importServers.error && (
          <Alert color="red" title="Nothing imported" role="alert">
            {importServers.error.message}
          </Alert>
        )}
        {summary && (
          <Alert color={summary.skipped.length ? 'orange' : 'teal'} title={`Imported ${summary.added.length + summary.replaced.length}, skipped ${summary.skipped.length}`}>
            <List size="sm">
              {summary.skipped.map((s) => (
                <List.Item key={s.name}>
                  <b>{s.name}</b>: {s.reason}
                </List.Item>
              ))}
            </List>
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
          {reviewed ? (
            <Button color={reviewed.servers.some((s) => s.transport === 'stdio') ? 'orange' : undefined} onClick={() => void submit()} disabled={reviewed.servers.length === 0} loading={importServers.isPending}>
              Import {reviewed.servers.length} server(s)
            </Button>
          ) : (
            <Button onClick={() => void review()} disabled={!text.trim()} loading={preview.isPending}>
              Review
            </Button>
          )}
        </Group>
      </Stack>
    </Modal>
  );
}
