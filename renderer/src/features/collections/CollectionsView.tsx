import { Alert, Badge, Box, Button, Center, Group, Loader, Paper, ScrollArea, Stack, Text, ThemeIcon, Title, Tooltip, UnstyledButton } from '@mantine/core';
import { IconAlertTriangle, IconFileImport, IconListCheck, IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { CollectionListItem } from '../../../../shared/collections';
import { useTRPC } from '../../rpc/client';
import { useLocation, useNavigate } from '../../shell/useSection';
import { CollectionDetail } from './CollectionDetail';
import { ImportCollectionModal } from './ImportCollectionModal';
import { NewCollectionModal } from './NewCollectionModal';
import { EmptyState } from '../../components/EmptyState';

/** The section's id in the navigation, where the selected collection is kept in the URL. */
export const COLLECTIONS_SECTION = 'collections';

/** Saved calls with assertions, run in order as regression checks. */
export function CollectionsView() {
  const trpc = useTRPC();
  const list = useQuery(trpc.collections.list.queryOptions());
  const { params } = useLocation();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const collections = list.data;
  const selected = collections?.find((c) => c.name === params.collection) ?? collections?.[0];
  const open = (name: string) => navigate(COLLECTIONS_SECTION, { collection: name });

  return (
    <Stack gap="md" h="100%">
      <Group justify="space-between">
        <div>
          <Title order={2}>Collections</Title>
          <Text c="dimmed" size="sm">
            Saved calls with assertions, run in order as regression checks. Each is a YAML file in the workspace.
          </Text>
        </div>
        <Group gap="xs">
          <Button variant="default" size="sm" leftSection={<IconFileImport size={16} />} onClick={() => setImporting(true)}>
            Import
          </Button>
          <Button size="sm" leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            New collection
          </Button>
        </Group>
      </Group>
      {list.error && <Alert color="red">{list.error.message}</Alert>}
      {!collections ? (
        <Center py="xl">
          <Loader aria-label="Loading collections" />
        </Center>
      ) : collections.length === 0 ? (
        <NoCollections onCreate={() => setCreating(true)} onImport={() => setImporting(true)} />
      ) : (
        <Group align="flex-start" gap="lg" wrap="nowrap">
          <Paper withBorder w={260} p={6} style={{ flexShrink: 0 }}>
            <ScrollArea.Autosize mah="calc(100vh - 200px)">
              <Stack gap={2} role="list" aria-label="Collections">
                {collections.map((c) => (
                  <CollectionListEntry key={c.name} item={c} active={c.name === selected?.name} onClick={() => open(c.name)} />
                ))}
              </Stack>
            </ScrollArea.Autosize>
          </Paper>
          <Box style={{ flex: 1, minWidth: 0 }}>{selected && <CollectionDetail key={selected.name} name={selected.name} onRenamed={open} onRemoved={() => navigate(COLLECTIONS_SECTION)} />}</Box>
        </Group>
      )}
      {creating && <NewCollectionModal existing={collections?.map((c) => c.name) ?? []} onClose={() => setCreating(false)} onCreated={open} />}
      {importing && <ImportCollectionModal onClose={() => setImporting(false)} onImported={open} />}
    </Stack>
  );
}

function CollectionListEntry({ item, active, onClick }: { item: CollectionListItem; active: boolean; onClick: () => void }) {
  return (
    <UnstyledButton role="listitem" aria-current={active ? 'true' : undefined} aria-label={item.name} onClick={onClick} p="xs" style={{ borderRadius: 8, background: active ? 'var(--mantine-color-default-hover)' : undefined }}>
      <Group gap="sm" wrap="nowrap">
        <ThemeIcon variant="light" size="md" color={item.problem ? 'orange' : undefined}>
          {item.problem ? <IconAlertTriangle size={16} /> : <IconListCheck size={16} />}
        </ThemeIcon>
        <div style={{ minWidth: 0, flex: 1 }}>
          <Text size="sm" fw={600} truncate="end">
            {item.name}
          </Text>
          {item.problem ? (
            <Tooltip label={item.problem} multiline maw={360} withArrow>
              <Badge size="xs" color="orange" variant="light">
                does not load
              </Badge>
            </Tooltip>
          ) : (
            <Text size="xs" c="dimmed" truncate="end">
              {item.requestCount} request{item.requestCount === 1 ? '' : 's'}
              {item.description ? ` · ${item.description}` : ''}
            </Text>
          )}
        </div>
      </Group>
    </UnstyledButton>
  );
}

function NoCollections({ onCreate, onImport }: { onCreate: () => void; onImport: () => void }) {
  return (
    <EmptyState
      icon={<IconListCheck size={30} />}
      title="No collections yet"
      description='Save a call from the Tools or History section with "Save to collection", or create a collection and add requests to it.'
      actions={
        <Group mt="sm">
          <Button onClick={onCreate} leftSection={<IconPlus size={16} />}>
            New collection
          </Button>
          <Button variant="default" onClick={onImport} leftSection={<IconFileImport size={16} />}>
            Import
          </Button>
        </Group>
      }
    />
  );
}
