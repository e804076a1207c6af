import { Alert, Box, Button, Center, Group, Loader, Paper, ScrollArea, Stack, Text, Title } from '@mantine/core';
import { IconFilePlus, IconFolderOpen } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { RESOURCE_TEMPLATES } from '../../../../shared/resources/templates';
import { WORKSPACE_FILE } from '../../../../shared/resources/workspace';
import { useTRPC } from '../../rpc/client';
import { useLocation, useNavigate } from '../../shell/useSection';
import { useClusterSchemas } from '../cluster/useClusterSchemas';
import { LaunchConfirmModal, launchesToConfirm } from '../../components/LaunchConfirmModal';
import { appErrorOf } from '../../rpc/appError';
import { DraftStore } from './drafts';
import { withClusterKinds } from './editor/withClusterKinds';
import { FileEditor, type EditorSchemas } from './FileEditor';
import { FileList } from './FileList';
import { NewFileModal } from './NewFileModal';
import { PathPromptModal } from './PathPromptModal';
import { useWorkspace } from './useWorkspace';

function checkNewPath(path: string, taken: string[]): string | undefined {
  if (!path) return 'Enter a file name';
  if (path.startsWith('/') || path.split(/[\\/]/).includes('..')) return 'Must be a relative path inside the folder';
  if (!WORKSPACE_FILE.test(path)) return 'Must end in .yaml or .yml';
  if (taken.includes(path)) return 'A file with this name already exists';
  return undefined;
}

/** The YAML workspace: its files, an editor with schema help and checks, and what the local target made of them. */
export function ResourcesView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { listing, statuses, error } = useWorkspace();
  const schemasQuery = useQuery({ ...trpc.resources.schemas.queryOptions(), staleTime: Infinity });
  const cluster = useClusterSchemas();
  const { params } = useLocation();
  const navigate = useNavigate();
  const [drafts] = useState(() => new DraftStore());
  const [, setDraftsSeen] = useState(0);
  /** `resources?new=<kind>` (the Evals view's "New suite") opens New file on that kind's template. */
  const linkedKind = RESOURCE_TEMPLATES.find((template) => template.kind === params.new)?.kind;
  const [creating, setCreating] = useState(linkedKind !== undefined);
  const [opening, setOpening] = useState(false);
  const openFolder = useMutation(trpc.resources.openFolder.mutationOptions());
  // A collection lives in the collections folder, which the workspace does not read: it is created there and opened in Collections.
  const createCollection = useMutation(trpc.collections.import.mutationOptions());
  /** Browser mode: a folder whose McpServers would start commands waits for their confirmation. */
  const [folderLaunches, setFolderLaunches] = useState<{ dir: string; lines: string[] }>();
  const open = (dir: string, confirmedLaunchLines: string[] = []) =>
    openFolder.mutate(
      { dir, confirmedLaunchLines },
      {
        onSuccess: (next) => {
          queryClient.setQueryData(trpc.resources.files.queryKey(), next);
          void queryClient.invalidateQueries({ queryKey: trpc.resources.pathKey() });
          setOpening(false);
          navigate('resources', {});
        },
        onError: (error) => {
          const lines = launchesToConfirm(appErrorOf(error));
          if (lines && confirmedLaunchLines.length === 0) {
            openFolder.reset();
            setFolderLaunches({ dir, lines });
          }
        },
      },
    );
  const onDraftChange = useCallback(() => setDraftsSeen((n) => n + 1), []);

  const files = listing?.files ?? [];
  const onDisk = files.map((f) => f.path);
  const dirty = drafts.dirtyPaths();
  const unsaved = dirty.filter((path) => !onDisk.includes(path) && drafts.get(path)?.baseVersion === null);
  const selected = params.file && (onDisk.includes(params.file) || unsaved.includes(params.file)) ? params.file : onDisk[0] ?? unsaved[0];

  const schemas = useMemo<EditorSchemas | undefined>(() => {
    if (!schemasQuery.data) return undefined;
    const { document, kinds } = schemasQuery.data;
    const descriptor = kinds.find((k) => k.kind === 'ClawDescriptor')?.schema;
    const pod = kinds.find((k) => k.kind === 'ClawPod')?.schema;
    const evalSuite = kinds.find((k) => k.kind === 'EvalSuite')?.schema;
    if (!cluster) return { document, descriptor, pod, evalSuite };
    const combined = withClusterKinds(document as Record<string, unknown>, kinds, cluster);
    return { document: combined.schema, descriptor, pod, evalSuite, cluster: { context: cluster.context, kinds: combined.added, groupVersions: cluster.groupVersions } };
  }, [schemasQuery.data, cluster]);

  const select = (path: string) => navigate('resources', { file: path });

  return (
    <Stack gap="md" h="100%">
      <Group justify="space-between" wrap="nowrap">
        <div style={{ minWidth: 0 }}>
          <Title order={2}>Resources</Title>
          <Text c="dimmed" size="sm" truncate="end">
            Workspace folder{' '}
            <Text span ff="monospace" size="sm" c="var(--mantine-color-text)" title={listing?.dir}>
              {listing?.dir ?? '…'}
            </Text>
          </Text>
        </div>
        <Group gap="xs" wrap="nowrap">
          <Button variant="default" size="sm" leftSection={<IconFolderOpen size={16} />} onClick={() => setOpening(true)}>
            Open folder
          </Button>
          <Button size="sm" leftSection={<IconFilePlus size={16} />} onClick={() => setCreating(true)} disabled={!listing}>
            New file
          </Button>
        </Group>
      </Group>
      {error && <Alert color="red">{error}</Alert>}
      {!listing ? (
        <Center py="xl">
          <Loader aria-label="Loading workspace" />
        </Center>
      ) : (
        <Group align="flex-start" gap="lg" wrap="nowrap">
          <Paper withBorder w={240} p={6} style={{ flexShrink: 0 }}>
            <ScrollArea.Autosize mah="calc(100vh - 200px)">
              <FileList files={files} unsaved={unsaved} dirty={dirty} selected={selected} onSelect={select} />
            </ScrollArea.Autosize>
          </Paper>
          <Box style={{ flex: 1, minWidth: 0 }}>
            {selected ? (
              <FileEditor key={selected} path={selected} exists={onDisk.includes(selected)} drafts={drafts} statuses={statuses} schemas={schemas} onDraftChange={onDraftChange} />
            ) : (
              <Paper withBorder p="xl" radius="lg">
                <Stack align="center" gap="sm">
                  <Title order={4}>No resource files</Title>
                  <Text c="dimmed" size="sm" ta="center" maw={420}>
                    Describe MCP servers, tools and permissions as YAML files in this folder, or open another folder.
                  </Text>
                </Stack>
              </Paper>
            )}
          </Box>
        </Group>
      )}
      {creating && (
        <NewFileModal
          {...(linkedKind ? { initialKind: linkedKind } : {})}
          checkPath={(path) => checkNewPath(path, [...onDisk, ...unsaved])}
          busy={createCollection.isPending}
          error={createCollection.error ? appErrorOf(createCollection.error).message : undefined}
          onClose={() => {
            createCollection.reset();
            setCreating(false);
            // The link that opened it is spent: a reload must not open it again.
            if (params.new) navigate('resources', params.file ? { file: params.file } : {});
          }}
          onCreate={(template, path) => {
            if (template.kind === 'Collection') {
              createCollection.mutate(
                { text: template.text.replaceAll(template.path, path), name: path },
                {
                  onSuccess: () => {
                    void queryClient.invalidateQueries({ queryKey: trpc.collections.pathKey() });
                    setCreating(false);
                    navigate('collections', { collection: path });
                  },
                },
              );
              return;
            }
            drafts.set(path, { text: template.text, baseVersion: null, baseText: '' });
            setCreating(false);
            select(path);
          }}
        />
      )}
      {opening && (
        <PathPromptModal
          title="Open folder"
          label="Folder"
          description="An absolute path on this machine. Drafts of the current folder stay in this session."
          placeholder="/home/me/tooldeck-resources"
          submitLabel="Open"
          initial={listing?.dir}
          busy={openFolder.isPending}
          error={openFolder.error ? appErrorOf(openFolder.error).message : undefined}
          check={(dir) => (dir ? undefined : 'Enter a folder')}
          onClose={() => {
            openFolder.reset();
            setOpening(false);
          }}
          onSubmit={(dir) => open(dir)}
        />
      )}
      <LaunchConfirmModal
        lines={folderLaunches?.lines}
        loading={openFolder.isPending}
        onCancel={() => setFolderLaunches(undefined)}
        onConfirm={() => {
          const pending = folderLaunches!;
          setFolderLaunches(undefined);
          open(pending.dir, pending.lines);
        }}
      />
    </Stack>
  );
}
