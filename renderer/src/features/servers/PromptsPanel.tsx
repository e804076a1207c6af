import { Alert, Badge, Button, Code, Group, NavLink, Paper, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { ServerSnapshot } from '../../../../shared/mcp';
import { useTRPC } from '../../rpc/client';
import { McpIconImage } from '../../components/McpIconImage';
import type { McpIcon } from '../../../../shared/icons';

type Message = { role: string; content: { type: string; text?: string; mimeType?: string } };

export function PromptsPanel({ server }: { server: ServerSnapshot }) {
  const trpc = useTRPC();
  const get = useMutation(trpc.mcp.getPrompt.mutationOptions());
  const [selected, setSelected] = useState<string>();
  const [args, setArgs] = useState<Record<string, string>>({});
  const prompt = server.prompts.find((p) => p.name === selected);
  const messages = (get.data as { messages?: Message[] } | undefined)?.messages;

  if (server.prompts.length === 0) return <Text c="dimmed" size="sm">This server lists no prompts.</Text>;
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
      <Stack gap={2} aria-label="Prompts">
        {server.prompts.map((p) => (
          <NavLink
            key={p.name}
            label={p.title ?? p.name}
            description={p.description}
            active={p.name === selected}
            onClick={() => {
              setSelected(p.name);
              setArgs({});
              get.reset();
            }}
          />
        ))}
      </Stack>
      {prompt ? (
        <Stack gap="sm">
          <Group gap="xs">
            <McpIconImage icons={(prompt as { icons?: McpIcon[] }).icons} label={`${prompt.name} icon`} />
            <Text fw={600}>{prompt.title ?? prompt.name}</Text>
          </Group>
          {(prompt.arguments ?? []).map((a) => (
            <TextInput key={a.name} size="xs" label={a.name} description={a.description} required={a.required} value={args[a.name] ?? ''} onChange={(e) => setArgs({ ...args, [a.name]: e.currentTarget.value })} />
          ))}
          <Group>
            <Button size="xs" loading={get.isPending} onClick={() => get.mutate({ server: server.config.name, name: prompt.name, arguments: args })}>
              Get prompt
            </Button>
          </Group>
          {get.error && <Alert color="red">{get.error.message}</Alert>}
          {messages?.map((m, i) => (
            <Paper key={i} withBorder p="sm">
              <Badge size="xs" mb={6} color={m.role === 'user' ? 'blue' : 'teal'}>
                {m.role}
              </Badge>
              {m.content.type === 'text' ? (
                <Code block fz="xs" style={{ whiteSpace: 'pre-wrap' }}>
                  {m.content.text}
                </Code>
              ) : (
                <Text size="sm">[{m.content.type}{m.content.mimeType ? ` ${m.content.mimeType}` : ''}]</Text>
              )}
            </Paper>
          ))}
        </Stack>
      ) : (
        <Text c="dimmed" size="sm">
          Pick a prompt to fill its arguments and get its messages.
        </Text>
      )}
    </SimpleGrid>
  );
}
