import { Alert, Button, Checkbox, FileButton, Group, Modal, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { IconFileUpload } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';
import { INPUT_LIMITS } from '../../../../shared/inputLimits';
import { readPickedFile } from '../../components/readPickedFile';

/** Imports a collection from YAML or JSON, pasted or from a file. */
export function ImportCollectionModal({ onClose, onImported }: { onClose: () => void; onImported: (name: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [replace, setReplace] = useState(false);
  const importing = useMutation(
    trpc.collections.import.mutationOptions({
      onSuccess: async (saved) => {
        await queryClient.invalidateQueries({ queryKey: trpc.collections.list.queryKey() });
        onImported(saved.collection.name);
        onClose();
      },
    }),
  );
  const pick = async (file: File | null) => {
    const picked = await readPickedFile(file, INPUT_LIMITS.collectionFile);
    if (picked !== undefined) setText(picked);
  };
  return (
    <Modal opened onClose={onClose} title="Import a collection" size="lg">
      <Stack gap="sm">
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            A collection file in YAML or JSON.
          </Text>
          <FileButton onChange={(file) => void pick(file)} accept=".yaml,.yml,.json,application/json,application/yaml,text/yaml">
            {(props) => (
              <Button {...props} variant="default" size="xs" leftSection={<IconFileUpload size={14} />}>
                Choose a file
              </Button>
            )}
          </FileButton>
        </Group>
        <Textarea label="Collection" value={text} onChange={(e) => setText(e.currentTarget.value)} autosize minRows={8} maxRows={20} spellCheck={false} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }} />
        <TextInput label="Save as" placeholder="the name in the file" value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <Checkbox label="Replace a collection of the same name" checked={replace} onChange={(e) => setReplace(e.currentTarget.checked)} />
        {importing.error && (
          <Alert color="red" variant="light" title="Not imported">
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {appErrorOf(importing.error).message}
            </Text>
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button disabled={!text.trim()} loading={importing.isPending} onClick={() => importing.mutate({ text, replace, ...(name.trim() ? { name: name.trim() } : {}) })}>
            Import
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
