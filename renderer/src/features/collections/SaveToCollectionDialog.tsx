import { Alert, Autocomplete, Button, Center, Code, Group, Loader, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CollectionName, type Assertion, type SavedRequest } from '../../../../shared/collections';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';

/** What is being saved: a call from the invoke panel, or a recorded call from history. */
export type SaveSource = { kind: 'call'; name: string; arguments: Record<string, unknown>; timeoutMs?: number; maxTotalTimeoutMs?: number } | { kind: 'history'; id: string };

export interface SaveToCollectionDialogProps {
  opened: boolean;
  source: SaveSource;
  onClose: () => void;
  onSaved?: (collection: string, request: string) => void;
}

const EXPECT_OPTIONS = [
  { value: 'ok', label: 'Status ok' },
  { value: 'isError', label: 'Tool returns an error (isError)' },
  { value: 'error', label: 'The call fails' },
  { value: 'none', label: 'No assertion' },
];

type Expect = 'ok' | 'isError' | 'error' | 'none';

function expectOf(draft: SavedRequest): Expect {
  return draft.assertions[0]?.status ?? 'ok';
}

/** Saves one call as a request of a collection (an existing one, or a new one by typing its name). */
export function SaveToCollectionDialog({ opened, source, onClose, onSaved }: SaveToCollectionDialogProps) {
  const trpc = useTRPC();
  const draft = useQuery(
    source.kind === 'call'
      ? trpc.collections.draftFromCall.queryOptions({ name: source.name, arguments: source.arguments, ...(source.timeoutMs ? { timeoutMs: source.timeoutMs } : {}) }, { enabled: opened, staleTime: 0, gcTime: 0 })
      : trpc.collections.draftFromHistory.queryOptions({ id: source.id }, { enabled: opened, staleTime: 0, gcTime: 0 }),
  );
  return (
    <Modal opened={opened} onClose={onClose} title="Save to collection" size="md">
      {draft.isPending ? (
        <Center py="lg">
          <Loader size="sm" aria-label="Preparing the request" />
        </Center>
      ) : draft.error ? (
        <Alert color="red" variant="light" title="This call cannot be saved">
          {appErrorOf(draft.error).message}
        </Alert>
      ) : (
        <SaveForm draft={source.kind === 'call' && source.maxTotalTimeoutMs ? { ...draft.data, maxTotalTimeoutMs: source.maxTotalTimeoutMs } : draft.data} onClose={onClose} onSaved={onSaved} />
      )}
    </Modal>
  );
}

function SaveForm({ draft, onClose, onSaved }: { draft: SavedRequest; onClose: () => void; onSaved?: (collection: string, request: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.collections.list.queryOptions());
  const [collection, setCollection] = useState('');
  const [name, setName] = useState(draft.name);
  const [expect, setExpect] = useState<Expect>(expectOf(draft));
  const save = useMutation(
    trpc.collections.saveRequest.mutationOptions({
      onSuccess: (saved) => {
        void queryClient.invalidateQueries({ queryKey: trpc.collections.list.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.collections.read.queryKey({ name: saved.collection.name }) });
        onSaved?.(saved.collection.name, name.trim());
        onClose();
      },
    }),
  );

  const names = (list.data ?? []).filter((c) => !c.problem).map((c) => c.name);
  const exists = names.includes(collection.trim());
  const collectionProblem = collection.trim() && !CollectionName.safeParse(collection.trim()).success ? CollectionName.safeParse(collection.trim()).error?.issues[0]?.message : undefined;
  const canSave = collection.trim() !== '' && !collectionProblem && name.trim() !== '' && !save.isPending;

  const submit = () => {
    if (!canSave) return;
    const kept = draft.assertions.slice(1);
    const first: Assertion[] = expect === 'none' ? [] : [expect === draft.assertions[0]?.status ? draft.assertions[0] : { status: expect }];
    save.mutate({ collection: collection.trim(), request: { ...draft, name: name.trim(), assertions: [...first, ...kept] } });
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          <Code>{draft.target}</Code> · <Code>{draft.tool}</Code> with its arguments{draft.timeoutMs ? ` and a ${draft.timeoutMs} ms timeout` : ''}.
        </Text>
        <Autocomplete
          label="Collection"
          placeholder="Choose, or type a new name"
          data={names}
          value={collection}
          onChange={setCollection}
          error={collectionProblem}
          description={collection.trim() && !collectionProblem ? (exists ? 'Adds the request to this collection.' : 'Creates this collection.') : undefined}
          data-autofocus
          required
        />
        <TextInput label="Request name" value={name} onChange={(e) => setName(e.currentTarget.value)} description="A request of the same name in the collection is replaced." required />
        <Select label="First assertion" data={EXPECT_OPTIONS} value={expect} allowDeselect={false} onChange={(v) => v && setExpect(v as Expect)} />
        {save.error && (
          <Alert color="red" variant="light" title="Could not save">
            {appErrorOf(save.error).message}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={!canSave} loading={save.isPending}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
