import { ActionIcon, Badge, Button, FileButton, Group, Modal, Paper, PasswordInput, SegmentedControl, Stack, Table, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { IconFileImport, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import type { ModelProviderView } from '../../../../shared/mediation';
import { INPUT_LIMITS } from '../../../../shared/inputLimits';
import { readPickedFile } from '../../components/readPickedFile';
import { useLocation } from '../../shell/useSection';
import { useProviderActions } from './useMediation';

const BASE_URL_HINT: Record<ModelProviderView['format'], string> = {
  openai: 'As the OpenAI SDK takes it, with /v1: https://api.openai.com/v1',
  anthropic: 'As the Anthropic SDK takes it, without /v1: https://api.anthropic.com',
};

/** The form that adds (or replaces) a provider; its key goes to the secret store and is never shown again. */
function AddProviderModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { add } = useProviderActions();
  const [name, setName] = useState('');
  const [format, setFormat] = useState<ModelProviderView['format']>('openai');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const close = () => {
    setName('');
    setBaseUrl('');
    setApiKey('');
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title="Add a model provider">
      <Stack
        component="form"
        gap="sm"
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate({ name: name.trim(), format, baseUrl: baseUrl.trim(), ...(apiKey ? { apiKey } : {}) }, { onSuccess: close });
        }}
      >
        <TextInput label="Name" description="The <provider> of a request's <provider>/<model>" placeholder="openai" value={name} onChange={(event) => setName(event.currentTarget.value)} required />
        <SegmentedControl aria-label="Wire format" value={format} onChange={(value) => setFormat(value as ModelProviderView['format'])} data={[{ value: 'openai', label: 'OpenAI' }, { value: 'anthropic', label: 'Anthropic' }]} />
        <TextInput label="Base URL" description={BASE_URL_HINT[format]} value={baseUrl} onChange={(event) => setBaseUrl(event.currentTarget.value)} required />
        <PasswordInput label="API key" description="Kept in the secret store; never shown again. Leave empty for a provider without keys (a local Ollama)." value={apiKey} onChange={(event) => setApiKey(event.currentTarget.value)} autoComplete="off" />
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button type="submit" loading={add.isPending}>
            Save provider
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** The providers mediation forwards to: a runner's `model` is `<provider>/<model>`. */
export function ProvidersCard({ providers }: { providers: ModelProviderView[] }) {
  const { remove, importFile } = useProviderActions();
  // `?add=provider`: the way the Playground and Evals send someone who has no provider yet.
  const [adding, setAdding] = useState(useLocation().params.add === 'provider');
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Model providers">
      <Group justify="space-between" mb="xs">
        <div>
          <Title order={4}>Model providers</Title>
          <Text size="sm" c="dimmed">
            A runner asks for <code>provider/model</code>; the request goes to that provider with its key from the secret store.
          </Text>
        </div>
        <Group gap="xs">
          <FileButton accept="application/json,.json" onChange={async (file) => {
            const text = await readPickedFile(file, INPUT_LIMITS.providersFile);
            if (text !== undefined) importFile.mutate({ text });
          }}>
            {(props) => (
              <Button {...props} variant="default" leftSection={<IconFileImport size={16} />} loading={importFile.isPending}>
                Import cllama providers.json
              </Button>
            )}
          </FileButton>
          <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
            Add provider
          </Button>
        </Group>
      </Group>
      {providers.length === 0 ? (
        <Text size="sm" c="dimmed" py="md">
          No providers yet. Add one (or import Clawdapus cllama's providers.json) and point a runner's OpenAI or Anthropic client at the gateway.
        </Text>
      ) : (
        <Table verticalSpacing="xs" aria-label="Providers">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Format</Table.Th>
              <Table.Th>Base URL</Table.Th>
              <Table.Th>Key</Table.Th>
              <Table.Th w={40} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {providers.map((provider) => (
              <Table.Tr key={provider.name}>
                <Table.Td ff="monospace">{provider.name}</Table.Td>
                <Table.Td>
                  <Badge variant="light" color={provider.format === 'openai' ? 'teal' : 'grape'}>
                    {provider.format === 'openai' ? 'OpenAI' : 'Anthropic'}
                  </Badge>
                </Table.Td>
                <Table.Td ff="monospace" fz="sm">
                  {provider.baseUrl}
                </Table.Td>
                <Table.Td>{provider.hasKey ? <Badge variant="dot" color="green">In the secret store</Badge> : <Badge variant="dot" color="gray">None</Badge>}</Table.Td>
                <Table.Td>
                  <Tooltip label={`Remove ${provider.name} and its key`}>
                    <ActionIcon variant="subtle" color="red" aria-label={`Remove provider ${provider.name}`} onClick={() => remove.mutate({ name: provider.name })}>
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Tooltip>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <AddProviderModal opened={adding} onClose={() => setAdding(false)} />
    </Paper>
  );
}
