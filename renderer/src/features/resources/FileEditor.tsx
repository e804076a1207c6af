import { Alert, Badge, Box, Button, Center, Group, Kbd, Loader, Paper, ScrollArea, Stack, Text, ThemeIcon, Title, Tooltip } from '@mantine/core';
import { IconCloudComputing, IconDeviceFloppy, IconEye, IconGitCompare } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Diagnostic } from '../../../../shared/resources/diagnostics';
import type { ResourceStatuses } from '../../../../shared/resources/statuses';
import type { ParsedDocument, WorkspaceFileView } from '../../../../shared/resources/workspace';
import { useTRPC } from '../../rpc/client';
import { LaunchConfirmModal, launchesToConfirm } from '../../components/LaunchConfirmModal';
import { appErrorOf } from '../../rpc/appError';
import { ConflictDialog } from './ConflictDialog';
import { DocumentStatusStrip } from './DocumentStatusStrip';
import type { Draft, DraftStore } from './drafts';
import { YamlDiff, YamlEditor } from './editor/YamlEditor';
import type { RevealRequest } from './editor/YamlEditorProps';
import { PreviewDefaultsModal } from './PreviewDefaultsModal';
import { ProblemsList } from './ProblemsList';
import { ReconcileStatus } from './ReconcileStatus';
import { schemaForFile } from './schemaForFile';

/** How long typing pauses before the backend checks the draft. */
const VALIDATE_DELAY_MS = 400;
// The Problems panel below takes about 130 px; the editor has the rest of the window.
const EDITOR_HEIGHT = 'max(320px, calc(100dvh - 370px))';

export interface EditorSchemas {
  document: unknown;
  descriptor: unknown;
  /** For `claw-pod.yml` files: agents and their tool grants. */
  pod: unknown;
  /** For `evals/*.yml` files: eval suites. */
  evalSuite?: unknown;
  /** Set while a cluster is connected: its kinds are in `document` too. */
  cluster?: { context: string; kinds: number; groupVersions: string[] };
}

export interface FileEditorProps {
  path: string;
  /** Whether the file is on disk (a new file is only a draft until saved). */
  exists: boolean;
  drafts: DraftStore;
  statuses: ResourceStatuses | undefined;
  schemas: EditorSchemas | undefined;
  /** The draft of `path` changed (begun, saved or dropped). */
  onDraftChange: () => void;
}

const NEW_FILE: Pick<WorkspaceFileView, 'text' | 'version' | 'diagnostics' | 'parsed'> = { text: '', version: null, diagnostics: [], parsed: [] };

/** One workspace file: its text, checks, diff, stored preview and local status. */
export function FileEditor(props: FileEditorProps) {
  const trpc = useTRPC();
  const read = useQuery({ ...trpc.resources.read.queryOptions({ path: props.path }), enabled: props.exists });
  if (!props.exists) return <DocumentEditor key={props.path} {...props} saved={NEW_FILE} />;
  if (read.error) return <Alert color="red">{appErrorOf(read.error).message}</Alert>;
  if (!read.data)
    return (
      <Center py="xl">
        <Loader aria-label="Loading file" />
      </Center>
    );
  if (read.data.text === undefined)
    return (
      <Alert color="yellow" title={read.data.tooLarge ? 'Too large to edit here' : 'Not readable'}>
        {read.data.diagnostics.map((d) => d.message).join(' ')}
      </Alert>
    );
  return <DocumentEditor key={props.path} {...props} saved={read.data} />;
}

interface DocumentEditorProps extends FileEditorProps {
  saved: Pick<WorkspaceFileView, 'text' | 'version' | 'diagnostics' | 'parsed'>;
}

interface Checked {
  text: string;
  diagnostics: Diagnostic[];
  parsed: ParsedDocument[];
}

function DocumentEditor({ path, saved, drafts, statuses, schemas, onDraftChange }: DocumentEditorProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const savedText = saved.text ?? '';
  const [draft, setDraftState] = useState<Draft>(() => drafts.get(path) ?? { text: savedText, baseVersion: saved.version, baseText: savedText });
  const [checked, setChecked] = useState<Checked>({ text: savedText, diagnostics: saved.diagnostics, parsed: saved.parsed });
  const [view, setView] = useState<'edit' | 'diff'>('edit');
  const [previewing, setPreviewing] = useState(false);
  const [conflict, setConflict] = useState<string>();
  const [saveError, setSaveError] = useState<string>();
  const [reveal, setReveal] = useState<RevealRequest>();
  const dirty = draft.text !== draft.baseText || draft.baseVersion === null;
  const language = /\.json$/i.test(path) ? 'json' : 'yaml';

  const setDraft = useCallback(
    (next: Draft) => {
      setDraftState(next);
      if (next.text === next.baseText && next.baseVersion !== null) drafts.delete(path);
      else drafts.set(path, next);
      onDraftChange();
    },
    [drafts, path, onDraftChange],
  );

  // A clean editor follows the file on disk; a draft stays as typed (saving it then reports the conflict).
  useEffect(() => {
    if (draft.text === draft.baseText && draft.baseVersion !== null && draft.baseVersion !== saved.version) {
      setDraftState({ text: savedText, baseVersion: saved.version, baseText: savedText });
      setChecked({ text: savedText, diagnostics: saved.diagnostics, parsed: saved.parsed });
    }
  }, [draft, saved, savedText]);

  const validate = useMutation(trpc.resources.validate.mutationOptions());
  const { mutate: runValidate } = validate;
  const latestText = useRef(draft.text);
  latestText.current = draft.text;
  useEffect(() => {
    if (checked.text === draft.text) return undefined;
    const text = draft.text;
    const timer = setTimeout(() => {
      runValidate(
        { text, path },
        {
          onSuccess: (result) => {
            if (latestText.current === text) setChecked({ text, diagnostics: result.diagnostics, parsed: result.parsed });
          },
        },
      );
    }, VALIDATE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft.text, checked.text, path, runValidate]);

  const save = useMutation(trpc.resources.save.mutationOptions());
  /** Browser mode: command lines this save would start, waiting for the operator's confirmation. */
  const [launches, setLaunches] = useState<{ lines: string[]; force: boolean }>();
  const doSave = (force: boolean, confirmedLaunchLines: string[] = []) => {
    const text = draft.text;
    setSaveError(undefined);
    save.mutate(
      { path, text, expectedVersion: draft.baseVersion, force, confirmedLaunchLines },
      {
        onSuccess: (file) => {
          setConflict(undefined);
          queryClient.setQueryData(trpc.resources.read.queryKey({ path }), file);
          void queryClient.invalidateQueries({ queryKey: trpc.resources.files.queryKey() });
          setDraft({ text: latestText.current, baseVersion: file.version, baseText: text });
          if (latestText.current === text) setChecked({ text, diagnostics: file.diagnostics, parsed: file.parsed });
        },
        onError: (error) => {
          const app = appErrorOf(error);
          const lines = launchesToConfirm(app);
          if (lines && confirmedLaunchLines.length === 0) setLaunches({ lines, force });
          else if (app.code === 'AlreadyExists') setConflict(app.message);
          else setSaveError(app.message);
        },
      },
    );
  };
  const saveRef = useRef(doSave);
  saveRef.current = doSave;
  const onSave = useCallback(() => saveRef.current(false), []);

  const reloadFromDisk = async () => {
    try {
      const file = await queryClient.fetchQuery({ ...trpc.resources.read.queryOptions({ path }), staleTime: 0 });
      const text = file.text ?? '';
      setDraft({ text, baseVersion: file.version, baseText: text });
      setChecked({ text, diagnostics: file.diagnostics, parsed: file.parsed });
      setConflict(undefined);
    } catch (error) {
      setConflict(undefined);
      setSaveError(appErrorOf(error).message);
    }
  };

  const servers = statuses?.mcpServers.filter((s) => s.source.file === path) ?? [];
  const errors = checked.diagnostics.filter((d) => d.severity === 'error').length;

  return (
    <Group align="flex-start" gap="md" wrap="nowrap" w="100%">
      <LaunchConfirmModal
        lines={launches?.lines}
        loading={save.isPending}
        onCancel={() => setLaunches(undefined)}
        onConfirm={() => {
          const pending = launches!;
          setLaunches(undefined);
          doSave(pending.force, pending.lines);
        }}
      />
      <Stack gap="sm" style={{ flex: 1, minWidth: 0 }}>
        <Group justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
            <Title order={4} ff="monospace" fz="md" style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
              {path}
            </Title>
            {dirty && (
              <Badge size="sm" variant="light" color="yellow">
                {draft.baseVersion === null ? 'new' : 'unsaved'}
              </Badge>
            )}
            {validate.isPending && <Loader size="xs" aria-label="Checking" />}
          </Group>
          <Group gap="xs" wrap="nowrap">
            <Button size="xs" variant={view === 'diff' ? 'filled' : 'default'} aria-pressed={view === 'diff'} leftSection={<IconGitCompare size={14} />} onClick={() => setView(view === 'diff' ? 'edit' : 'diff')}>
              Diff
            </Button>
            <Button size="xs" variant="default" leftSection={<IconEye size={14} />} onClick={() => setPreviewing(true)}>
              Preview defaults
            </Button>
            <Tooltip label={<>Save <Kbd size="xs">Ctrl/⌘ S</Kbd></>}>
              <Button size="xs" leftSection={<IconDeviceFloppy size={14} />} onClick={onSave} loading={save.isPending} disabled={!dirty}>
                Save
              </Button>
            </Tooltip>
          </Group>
        </Group>
        {saveError && (
          <Alert color="red" withCloseButton onClose={() => setSaveError(undefined)} title="Not saved">
            {saveError}
          </Alert>
        )}
        {dirty && draft.baseVersion !== saved.version && saved.version !== null && (
          <Alert color="yellow" variant="light" p="xs">
            This file changed on disk after you started editing. Saving asks before overwriting it.
          </Alert>
        )}
        <div role="region" aria-label="YAML editor">
          {view === 'diff' ? (
            <YamlDiff original={draft.baseText} modified={draft.text} language={language} modelKey={path} height={EDITOR_HEIGHT} />
          ) : (
            <YamlEditor
              value={draft.text}
              onChange={(text) => setDraft({ ...draft, text })}
              label={`Text of ${path}`}
              modelPath={`file:///workspace/${path}`}
              language={language}
              diagnostics={checked.text === draft.text ? checked.diagnostics : []}
              onSave={onSave}
              reveal={reveal}
              schema={schemaForFile(path, schemas)}
              height={EDITOR_HEIGHT}
            />
          )}
        </div>
        {/* The editor takes the whole width; problems and the file's documents share the row below. */}
        <Group align="flex-start" gap="md" wrap="wrap">
          <Box style={{ flex: '1 1 420px', minWidth: 0 }}>
            <Paper withBorder radius="md" p={6}>
              <Group gap="xs" px="xs" pb={4}>
                <Text size="xs" fw={700} tt="uppercase" c="dimmed">
                  Problems
                </Text>
                {checked.diagnostics.length > 0 && (
                  <Badge size="xs" color={errors > 0 ? 'red' : 'yellow'} variant="light">
                    {checked.diagnostics.length}
                  </Badge>
                )}
              </Group>
              <ScrollArea.Autosize mah={150}>
                <ProblemsList
                  file={path}
                  diagnostics={checked.diagnostics}
                  onSelect={(d) => {
                    setView('edit');
                    setReveal((prev) => ({ line: d.line, column: d.column, seq: (prev?.seq ?? 0) + 1 }));
                  }}
                />
              </ScrollArea.Autosize>
            </Paper>
          </Box>
          <Stack gap="md" style={{ flex: '0 1 360px', minWidth: 260 }}>
            {language === 'yaml' && schemas?.cluster && <ClusterSchemasNote {...schemas.cluster} />}
            <Paper withBorder radius="md" p="sm">
              <Text size="xs" fw={700} tt="uppercase" c="dimmed" mb={6}>
                Documents
              </Text>
              <DocumentStatusStrip file={path} documents={checked.parsed} statuses={statuses} />
            </Paper>
            {servers.length > 0 && (
              <div>
                <Text size="xs" fw={700} tt="uppercase" c="dimmed" mb={6}>
                  Reconcile status
                </Text>
                <ReconcileStatus servers={servers} />
              </div>
            )}
          </Stack>
        </Group>
      </Stack>
      {previewing && <PreviewDefaultsModal path={path} text={draft.text} onClose={() => setPreviewing(false)} />}
      {conflict && <ConflictDialog path={path} message={conflict} busy={save.isPending} onReload={() => void reloadFromDisk()} onOverwrite={() => doSave(true)} onClose={() => setConflict(undefined)} />}
    </Group>
  );
}

function ClusterSchemasNote({ context, kinds, groupVersions }: NonNullable<EditorSchemas['cluster']>) {
  return (
    <Paper withBorder radius="md" p="sm" aria-label={`Schemas of cluster ${context}`}>
      <Text size="xs" fw={700} tt="uppercase" c="dimmed" mb={6}>
        Schemas
      </Text>
      <Group gap={8} wrap="nowrap" align="flex-start">
        <ThemeIcon size="sm" variant="light" color="indigo">
          <IconCloudComputing size={14} />
        </ThemeIcon>
        <Tooltip label={`From its OpenAPI documents: ${groupVersions.join(', ')}`} multiline maw={300} withArrow>
          <Text size="xs" style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
            Completion, hover and checks also cover the {kinds} {kinds === 1 ? 'kind' : 'kinds'} of cluster{' '}
            <Text span ff="monospace" size="xs" fw={600}>
              {context}
            </Text>
            .
          </Text>
        </Tooltip>
      </Group>
    </Paper>
  );
}
