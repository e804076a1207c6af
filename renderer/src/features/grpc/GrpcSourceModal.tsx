import { Alert, Badge, Button, Checkbox, FileButton, Group, Modal, SegmentedControl, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { GrpcProtocol, GrpcSourceView, GrpcTlsMode } from '../../../../shared/grpc';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';
import { KeyValueEditor, type KeyValueRow } from '../servers/KeyValueEditor';
import { readableError } from '../servers/readableError';
import { INPUT_LIMITS } from '../../../../shared/inputLimits';
import { readPickedFile } from '../../components/readPickedFile';

function PemField({ label, description, value, onChange }: { label: string; description: string; value: string; onChange: (value: string) => void }) {
  return (
    <Stack gap={4}>
      <Textarea label={label} description={description} value={value} onChange={(e) => onChange(e.currentTarget.value)} autosize minRows={2} maxRows={5} ff="monospace" placeholder="-----BEGIN …-----" />
      <FileButton onChange={(file) => void readPickedFile(file, INPUT_LIMITS.pemFile).then((text) => text !== undefined && onChange(text))} accept=".pem,.crt,.key,text/plain">
        {(props) => (
          <Button {...props} size="compact-xs" variant="subtle" w="fit-content" aria-label={`Load ${label} from a file`}>
            Load from a file…
          </Button>
        )}
      </FileButton>
    </Stack>
  );
}

function metadataOf(rows: KeyValueRow[]): Record<string, string> {
  return Object.fromEntries(rows.filter((row) => row.key.trim()).map((row) => [row.key.trim().toLowerCase(), row.value]));
}

/** Adds a source: lists it first (so a wrong address or certificate says which step failed) and saves nothing until it answers. */
export function GrpcSourceModal({ onClose, onSaved }: { onClose: () => void; onSaved: (name: string) => void }) {
  const trpc = useTRPC();
  const add = useMutation(trpc.grpc.add.mutationOptions());
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const [protocol, setProtocol] = useState<GrpcProtocol>('tools.v1');
  const [mode, setMode] = useState<GrpcTlsMode>('plaintext');
  const [ca, setCa] = useState('');
  const [cert, setCert] = useState('');
  const [key, setKey] = useState('');
  const [serverName, setServerName] = useState('');
  const [metadata, setMetadata] = useState<KeyValueRow[]>([]);
  const [skipCheck, setSkipCheck] = useState(false);
  const failure = add.error ? appErrorOf(add.error) : undefined;

  const submit = async () => {
    const tls = {
      mode,
      ...(mode !== 'plaintext' && ca.trim() ? { ca } : {}),
      ...(mode === 'mtls' ? { cert, key } : {}),
      ...(mode !== 'plaintext' && serverName.trim() ? { serverName: serverName.trim() } : {}),
    };
    const view = await add.mutateAsync({ name: name.trim(), address: address.trim(), protocol, tls, metadata: metadataOf(metadata), ...(skipCheck ? { skipCheck } : {}) });
    const count = view.protocol === 'reflection' ? `${view.services.length} services` : `${view.tools.filter((tool) => !tool.unusable).length} tools`;
    notifications.show({ color: 'teal', title: `Added ${view.name}`, message: view.state === 'ready' ? `${count} are in the registry` : 'Saved; it is listed when it answers' });
    onSaved(view.name);
    onClose();
  };

  return (
    <Modal opened onClose={onClose} title="Add a gRPC source" centered size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit().catch(() => undefined);
        }}
      >
        <Stack>
          <Group grow align="flex-start">
            <TextInput label="Name" description="Entries become grpc:<name>.<tool>" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
            <TextInput label="Address" description="host:port" required value={address} onChange={(e) => setAddress(e.currentTarget.value)} ff="monospace" placeholder="127.0.0.1:50051" />
          </Group>
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Speaks
            </Text>
            <SegmentedControl
              value={protocol}
              onChange={(value) => setProtocol(value as GrpcProtocol)}
              aria-label="Protocol"
              data={[
                { value: 'tools.v1', label: 'tools.v1 ToolServer' },
                { value: 'reflection', label: 'Any service (reflection)' },
              ]}
            />
          </Stack>
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Security
            </Text>
            <SegmentedControl
              value={mode}
              onChange={(value) => setMode(value as GrpcTlsMode)}
              aria-label="Security"
              data={[
                { value: 'plaintext', label: 'Plaintext' },
                { value: 'tls', label: 'TLS' },
                { value: 'mtls', label: 'mTLS' },
              ]}
            />
          </Stack>
          {mode !== 'plaintext' && (
            <>
              <PemField label="CA certificate" description="Trust this CA instead of the system's (optional)" value={ca} onChange={setCa} />
              <TextInput label="Server name" description="The name the server certificate carries, when not the host dialled (optional)" value={serverName} onChange={(e) => setServerName(e.currentTarget.value)} />
            </>
          )}
          {mode === 'mtls' && (
            <>
              <PemField label="Client certificate" description="PEM certificate chain presented to the server" value={cert} onChange={setCert} />
              <PemField label="Client key" description="Its private key; kept in the secret store" value={key} onChange={setKey} />
            </>
          )}
          <KeyValueEditor label="Metadata" rows={metadata} onChange={setMetadata} keyPlaceholder="authorization" valuePlaceholder="Bearer …" />
          <Text size="xs" c="dimmed" mt={-8}>
            Sent with every call; the values are kept in the secret store, never in a file.
          </Text>
          <Checkbox label="Save even if it cannot be reached now" checked={skipCheck} onChange={(e) => setSkipCheck(e.currentTarget.checked)} />
          {failure && (
            <Alert color="red" title={failure.step ? `Not added — failed at ${failure.step}` : 'Not added'} role="alert">
              {failure.code === 'InvalidInput' ? readableError(add.error) : failure.message}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={add.isPending}>
              Add
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Replaces the metadata a source sends; the current values are never shown, only their keys. */
export function MetadataModal({ source, onClose }: { source: GrpcSourceView; onClose: () => void }) {
  const trpc = useTRPC();
  const save = useMutation(trpc.grpc.setMetadata.mutationOptions({ onSuccess: onClose }));
  const [rows, setRows] = useState<KeyValueRow[]>(source.metadataKeys.map((key) => ({ key, value: '' })));
  return (
    <Modal opened onClose={onClose} title={`Metadata of ${source.name}`} centered>
      <Stack>
        <Text size="sm" c="dimmed">
          Stored values are not shown. Saving replaces them all{source.managedBy ? '; for a workspace Tool with auth, set the token under the key it names' : ''}.
        </Text>
        <Group gap={4}>
          {source.metadataKeys.map((key) => (
            <Badge key={key} variant="default">
              {key}
            </Badge>
          ))}
        </Group>
        <KeyValueEditor label="Metadata" rows={rows} onChange={setRows} keyPlaceholder="authorization" valuePlaceholder="Bearer …" />
        {save.error && (
          <Alert color="red" role="alert">
            {appErrorOf(save.error).message}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button loading={save.isPending} onClick={() => save.mutate({ name: source.name, metadata: metadataOf(rows) })}>
            Save
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
