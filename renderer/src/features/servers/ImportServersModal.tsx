import { Alert, Button, Checkbox, FileButton, Group, List, Modal, Stack, Text, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconFileImport } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../../rpc/client';

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
  const importServers = useMutation(trpc.mcp.import.mutationOptions());
  const summary = importServers.data;

  const submit = async () => {
    const result = await importServers.mutateAsync({ text, replace });
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
        <Textarea label="Configuration JSON" placeholder={EXAMPLE} autosize minRows={8} maxRows={16} value={text} onChange={(e) => setText(e.currentTarget.value)} ff="monospace" styles={{ input: { fontSize: 12 } }} />
        <Group justify="space-between">
          <FileButton accept="application/json,.json" onChange={(file) => file && void file.text().then(setText)}>
            {(props) => (
              <Button variant="default" size="xs" leftSection={<IconFileImport size={14} />} {...props}>
                Open file…
              </Button>
            )}
          </FileButton>
          <Checkbox label="Replace servers with the same name" checked={replace} onChange={(e) => setReplace(e.currentTarget.checked)} />
        </Group>
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
          <Button onClick={() => void submit()} disabled={!text.trim()} loading={importServers.isPending}>
            Import
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
