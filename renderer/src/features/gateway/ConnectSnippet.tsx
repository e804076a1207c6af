import { Box, Code, Group, Paper, Stack, Tabs, Text } from '@mantine/core';
import { CopyButton } from '../../components/CopyButton';

/** The URL an agent is handed: the running gateway's, else the one it will have on the chosen port. */
export function gatewayUrlFor(url: string | undefined, port: number): string {
  return url ?? `http://127.0.0.1:${port}/mcp`;
}

/** An MCP host's server entry for the gateway (the `mcpServers` form most hosts read). */
export function hostConfig(url: string, credential: string): string {
  return JSON.stringify({ mcpServers: { tooldeck: { type: 'http', url, headers: { Authorization: `Bearer ${credential}` } } } }, null, 2);
}

/**
 * A terminal's way to see what an agent sees: initialize (the answer's Mcp-Session-Id header names
 * the session), say initialized, then tools/list in that session. POSIX sh with curl and awk only.
 */
export function curlRecipe(url: string, credential: string): string {
  const headers = `-H 'Authorization: Bearer ${credential}' -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'`;
  return [
    `URL='${url}'`,
    `SID=$(curl -s -D - -o /dev/null "$URL" ${headers} \\`,
    `  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1.0.0"}}}' \\`,
    `  | tr -d '\\r' | awk 'tolower($1) == "mcp-session-id:" { print $2 }')`,
    `curl -s "$URL" ${headers} -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25' \\`,
    `  -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'`,
    `curl -s "$URL" ${headers} -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25' \\`,
    `  -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'`,
  ].join('\n');
}

function Snippet({ label, value }: { label: string; value: string }) {
  return (
    <Group gap={4} align="flex-start" wrap="nowrap">
      <Code block fz="xs" style={{ flex: 1, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} aria-label={label}>
        {value}
      </Code>
      <CopyButton value={value} label={`Copy ${label.toLowerCase()}`} size="xs" />
    </Group>
  );
}

/**
 * How an agent connects: over HTTP with its credential as a bearer token (or `x-api-key`), or, for a
 * host that launches its servers, `tooldeck gateway --stdio --agent NAME`. `credential` is the
 * NAME:SECRET just created (shown once), else the placeholder.
 */
export function ConnectSnippet({ url, credential = 'NAME:SECRET', agent = 'NAME', framed = true }: { url: string; credential?: string; agent?: string; framed?: boolean }) {
  const body = (
    <Stack gap="xs">
      {framed && (
        <Text fw={600} size="sm">
          Connect an agent
        </Text>
      )}
      <Tabs defaultValue="http" variant="outline">
        <Tabs.List>
          <Tabs.Tab value="http">Streamable HTTP</Tabs.Tab>
          <Tabs.Tab value="config">Host config</Tabs.Tab>
          <Tabs.Tab value="stdio">stdio</Tabs.Tab>
          <Tabs.Tab value="curl">curl</Tabs.Tab>
        </Tabs.List>
        <Box pt="xs">
          <Tabs.Panel value="http">
            <Stack gap={6}>
              <Snippet label="URL" value={url} />
              <Snippet label="Header" value={`Authorization: Bearer ${credential}`} />
              <Text size="xs" c="dimmed">
                Or <Code fz="xs">x-api-key: {credential}</Code>. The agent sees exactly the tools the workspace grants {agent === 'NAME' ? 'that name' : agent}, as <Code fz="xs">server.tool</Code>.
              </Text>
            </Stack>
          </Tabs.Panel>
          <Tabs.Panel value="config">
            <Snippet label="Host config" value={hostConfig(url, credential)} />
          </Tabs.Panel>
          <Tabs.Panel value="stdio">
            <Stack gap={6}>
              <Snippet label="Command" value={`tooldeck gateway --stdio --agent ${agent}`} />
              <Text size="xs" c="dimmed">
                For hosts that launch their MCP servers: one agent over stdin/stdout, on the same data dir; the agent must hold a live credential.
              </Text>
            </Stack>
          </Tabs.Panel>
          <Tabs.Panel value="curl">
            <Stack gap={6}>
              <Snippet label="curl recipe" value={curlRecipe(url, credential)} />
              <Text size="xs" c="dimmed">
                What the agent sees, from a terminal: initialize opens a session (its id comes back in the <Code fz="xs">Mcp-Session-Id</Code> header), then{' '}
                <Code fz="xs">tools/list</Code> in that session lists its granted tools; <Code fz="xs">tools/call</Code> calls one the same way.
              </Text>
            </Stack>
          </Tabs.Panel>
        </Box>
      </Tabs>
    </Stack>
  );
  return framed ? (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Connect an agent" h="100%">
      {body}
    </Paper>
  ) : (
    body
  );
}
