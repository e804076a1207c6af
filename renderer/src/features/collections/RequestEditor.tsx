import { Alert, Autocomplete, Button, Checkbox, Divider, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconDeviceFloppy, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { SavedRequest } from '../../../../shared/collections';
import { JsonEditor } from '../../monaco/JsonEditor';
import { useTRPC } from '../../rpc/client';
import { AssertionsEditor } from './AssertionsEditor';
import { CapturesEditor } from './CapturesEditor';
import { draftFromRequest, requestFromDraft, type RequestDraft } from './requestDraft';

export interface RequestEditorProps {
  request: SavedRequest;
  /** Names the other requests use: a request name is unique in its collection. */
  otherNames: string[];
  saving: boolean;
  onSave: (request: SavedRequest) => void;
  onDelete?: () => void;
}

function modelName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Edits one saved request; nothing changes on disk until "Save request". */
export function RequestEditor({ request, otherNames, saving, onSave, onDelete }: RequestEditorProps) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState<RequestDraft>(() => draftFromRequest(request));
  const tools = useQuery(trpc.tools.list.queryOptions());
  const set = (patch: Partial<RequestDraft>) => setDraft((d) => ({ ...d, ...patch }));

  const targets = useMemo(() => [...new Set((tools.data ?? []).filter((t) => t.source.kind === 'mcp' || t.source.kind === 'a2a').map((t) => `${t.source.kind}:${t.source.name}`))].sort(), [tools.data]);
  const toolNames = useMemo(() => (tools.data ?? []).filter((t) => `${t.source.kind}:${t.source.name}` === draft.target.trim()).map((t) => t.toolName), [tools.data, draft.target]);

  const checked = requestFromDraft(draft);
  const duplicate = otherNames.includes(draft.name.trim());
  const problem = duplicate ? `Another request is already named "${draft.name.trim()}"` : checked.ok ? undefined : checked.message;

  return (
    <Stack gap="sm" component="section" aria-label="Request editor">
      <Group justify="space-between">
        <Title order={4}>{request.name || 'New request'}</Title>
        <Group gap="xs">
          {onDelete && (
            <Button variant="subtle" color="red" size="xs" leftSection={<IconTrash size={14} />} onClick={onDelete}>
              Delete request
            </Button>
          )}
          <Button size="xs" leftSection={<IconDeviceFloppy size={14} />} disabled={problem !== undefined} loading={saving} onClick={() => checked.ok && onSave(checked.value)}>
            Save request
          </Button>
        </Group>
      </Group>
      {problem && (
        <Alert color="yellow" variant="light" py={6}>
          <Text size="sm">{problem}</Text>
        </Alert>
      )}
      <Group grow align="flex-start">
        <TextInput label="Name" value={draft.name} onChange={(e) => set({ name: e.currentTarget.value })} required />
        <TextInput label="Description" value={draft.description} onChange={(e) => set({ description: e.currentTarget.value })} />
      </Group>
      <Group grow align="flex-start">
        <Autocomplete label="Target" description="mcp:<server> or a2a:<agent>" ff="monospace" data={targets} value={draft.target} onChange={(target) => set({ target })} required />
        <Autocomplete label="Tool" description="The tool or skill on the target" data={toolNames} value={draft.tool} onChange={(tool) => set({ tool })} required />
      </Group>
      <div>
        <Text size="sm" fw={500} mb={4}>
          Arguments
        </Text>
        <Text size="xs" c="dimmed" mb={4}>
          JSON; strings may hold {'{{variable}}'} or {'{{secret:NAME}}'} placeholders.
        </Text>
        <JsonEditor label="Arguments" modelPath={`inmemory://tooldeck/collections/${modelName(request.name || 'new')}.json`} value={draft.arguments} onChange={(text) => set({ arguments: text })} minHeight={120} maxHeight={320} />
      </div>
      <Group grow align="flex-start">
        <TextInput label="Timeout (ms)" placeholder="the tool's policy" value={draft.timeoutMs} onChange={(e) => set({ timeoutMs: e.currentTarget.value })} inputMode="numeric" />
        <TextInput label="Total timeout (ms)" placeholder="the tool's policy" description="Retries included" value={draft.maxTotalTimeoutMs} onChange={(e) => set({ maxTotalTimeoutMs: e.currentTarget.value })} inputMode="numeric" />
      </Group>
      <Checkbox label="Confirmed: run even where policy asks for confirmation" checked={draft.confirmed} onChange={(e) => set({ confirmed: e.currentTarget.checked })} />
      <Divider label="Assertions" labelPosition="left" />
      <AssertionsEditor value={draft.assertions} onChange={(assertions) => set({ assertions })} />
      <Divider label="Captures" labelPosition="left" />
      <CapturesEditor value={draft.captures} onChange={(captures) => set({ captures })} />
    </Stack>
  );
}
