import { Alert, Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CollectionName } from '../../../../shared/collections';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';

/** Creates an empty collection file. */
export function NewCollectionModal({ existing, onClose, onCreated }: { existing: string[]; onClose: () => void; onCreated: (name: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation(
    trpc.collections.save.mutationOptions({
      onSuccess: async (saved) => {
        await queryClient.invalidateQueries({ queryKey: trpc.collections.list.queryKey() });
        onCreated(saved.collection.name);
        onClose();
      },
    }),
  );
  const trimmed = name.trim();
  const checked = CollectionName.safeParse(trimmed);
  const problem = !trimmed ? undefined : !checked.success ? checked.error.issues[0]?.message : existing.includes(trimmed) ? 'A collection of that name exists' : undefined;
  return (
    <Modal opened onClose={onClose} title="New collection">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (trimmed && !problem) create.mutate({ collection: { name: trimmed, ...(description.trim() ? { description: description.trim() } : {}), variables: {}, requests: [] } });
        }}
      >
        <Stack gap="sm">
          <TextInput label="Name" description="Also the file name: <name>.yaml" value={name} onChange={(e) => setName(e.currentTarget.value)} error={problem} data-autofocus required />
          <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
          {create.error && (
            <Alert color="red" variant="light">
              {appErrorOf(create.error).message}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={!trimmed || problem !== undefined} loading={create.isPending}>
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
