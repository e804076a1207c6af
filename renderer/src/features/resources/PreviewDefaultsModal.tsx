import { Alert, Center, Code, Group, Loader, Modal, ScrollArea, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect } from 'react';
import { formatDiagnostic } from '../../../../shared/resources/diagnostics';
import { CopyButton } from '../../components/CopyButton';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';

export interface PreviewDefaultsModalProps {
  path: string;
  text: string;
  onClose: () => void;
}

/** The draft's objects as they will be stored, every default filled in. */
export function PreviewDefaultsModal({ path, text, onClose }: PreviewDefaultsModalProps) {
  const trpc = useTRPC();
  const preview = useMutation(trpc.resources.previewDefaults.mutationOptions());
  const { mutate } = preview;
  useEffect(() => mutate({ text, path }), [mutate, text, path]);

  return (
    <Modal opened onClose={onClose} title="Preview defaults" size="xl">
      {preview.isPending || !preview.data ? (
        preview.error ? (
          <Alert color="red">{appErrorOf(preview.error).message}</Alert>
        ) : (
          <Center py="xl">
            <Loader size="sm" aria-label="Loading preview" />
          </Center>
        )
      ) : (
        <Stack gap="sm">
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              {preview.data.objects.length} object{preview.data.objects.length === 1 ? '' : 's'} as stored{preview.data.valid ? '' : '; invalid documents are left out'}.
            </Text>
            <CopyButton value={preview.data.yaml} label="Copy stored YAML" />
          </Group>
          {preview.data.diagnostics.length > 0 && (
            <Alert color="yellow" variant="light">
              {preview.data.diagnostics.map((d, i) => (
                <Text key={i} size="xs" ff="monospace">
                  {formatDiagnostic(d, path)}
                </Text>
              ))}
            </Alert>
          )}
          <ScrollArea.Autosize mah="60vh">
            <Code block aria-label="Stored YAML">
              {preview.data.yaml}
            </Code>
          </ScrollArea.Autosize>
        </Stack>
      )}
    </Modal>
  );
}
