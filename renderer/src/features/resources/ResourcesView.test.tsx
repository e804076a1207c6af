import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createTRPCClient } from '@trpc/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../../../main/rpc/router';
import type { AppErrorShape } from '../../../../shared/errors';
import { RESOURCE_KINDS, workspaceDocumentSchema } from '../../../../shared/resources/kinds';
import { RESOURCE_TEMPLATES } from '../../../../shared/resources/templates';
import type { ResourceStatuses } from '../../../../shared/resources/statuses';
import type { ValidateTextResult, WorkspaceFileView } from '../../../../shared/resources/workspace';
import { schemaProblems } from '../../components/jsonSchema';
import { TRPCProvider } from '../../rpc/client';
import { NavigationProvider } from '../../shell/useSection';
import { testCluster } from '../cluster/testing/testCluster';
import { FakeBackend } from '../invoke/testing/FakeBackend';
import { plainYamlEditors, YamlEditorImplementation, type YamlEditorComponents } from './editor/YamlEditor';
import type { YamlEditorProps } from './editor/YamlEditorProps';
import { ResourcesView } from './ResourcesView';

const SERVER_YAML = `apiVersion: orloj.dev/v1
kind: McpServer
metadata:
  name: everything
spec:
  transport: stdio
  command: npx
`;

const serverFile: WorkspaceFileView = {
  path: 'servers.yaml',
  version: 'v1',
  size: SERVER_YAML.length,
  documents: 1,
  errors: 0,
  warnings: 0,
  kinds: ['McpServer'],
  tooLarge: false,
  text: SERVER_YAML,
  parsed: [{ index: 0, line: 1, apiVersion: 'orloj.dev/v1', kind: 'McpServer', name: 'everything', valid: true, diagnostics: [] }],
  diagnostics: [],
};

const statuses: ResourceStatuses = {
  mcpServers: [
    {
      name: 'everything',
      namespace: 'default',
      generation: 1,
      source: { file: 'servers.yaml', document: 0 },
      status: {
        phase: 'Ready',
        discoveredTools: ['echo', 'add', 'longRunningOperation'],
        generatedTools: ['everything--echo', 'everything--add'],
        lastSyncedAt: '2026-01-01T00:00:00.000Z',
        observedGeneration: 1,
        attempts: 0,
      },
    },
  ],
  tools: [],
  toolPermissions: [],
};

function workspaceBackend(): FakeBackend {
  const { text: _text, parsed: _parsed, diagnostics: _diagnostics, ...summary } = serverFile;
  return new FakeBackend()
    .answer('resources.files', () => ({ dir: '/work/space', files: [summary] }))
    .answer('resources.statuses', () => statuses)
    .answer('resources.schemas', () => ({ document: {}, kinds: [] }))
    .answer('resources.read', () => serverFile);
}

function renderView(backend: FakeBackend, editors: YamlEditorComponents = plainYamlEditors) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const trpcClient = createTRPCClient<AppRouter>({ links: [backend.link()] });
  return render(
    <MantineProvider env="test">
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          <NavigationProvider>
            <YamlEditorImplementation.Provider value={editors}>
              <ResourcesView />
            </YamlEditorImplementation.Provider>
          </NavigationProvider>
        </TRPCProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
}

async function editorText(): Promise<HTMLTextAreaElement> {
  const region = await screen.findByRole('region', { name: 'YAML editor' });
  return within(region).getByRole('textbox') as HTMLTextAreaElement;
}

describe('ResourcesView', () => {
  beforeEach(() => sessionStorage.clear());
  afterEach(() => sessionStorage.clear());

  it('lists the workspace files and shows the backend problems of the draft with their field paths', async () => {
    const checked: ValidateTextResult = {
      valid: false,
      parsed: serverFile.parsed,
      diagnostics: [{ severity: 'error', code: 'invalid', message: 'must be one of stdio, http', path: 'spec.transport', document: 0, line: 6, column: 14, endLine: 6, endColumn: 19 }],
    };
    const backend = workspaceBackend().answer('resources.validate', () => checked);
    renderView(backend);

    const files = await screen.findByRole('list', { name: 'Workspace files' });
    expect(within(files).getByRole('listitem', { name: 'servers.yaml' })).toBeTruthy();

    fireEvent.change(await editorText(), { target: { value: SERVER_YAML.replace('stdio', 'carrier-pigeon') } });

    const problems = screen.getByRole('list', { name: 'Problems' });
    const problem = await within(problems).findByRole('listitem');
    expect(problem.textContent).toContain('must be one of stdio, http');
    expect(problem.textContent).toContain('spec.transport');
    expect(problem.textContent).toContain('servers.yaml:6:14');
    expect(backend.callsTo('resources.validate')).toEqual([{ text: SERVER_YAML.replace('stdio', 'carrier-pigeon'), path: 'servers.yaml' }]);
  });

  it('opens the conflict dialog when the file changed on disk, keeps the draft, and can overwrite', async () => {
    const conflict: AppErrorShape = { code: 'AlreadyExists', message: 'servers.yaml changed on disk since you opened it.', retryable: false, step: 'conflict' };
    const backend = workspaceBackend()
      .answer('resources.validate', () => ({ valid: true, parsed: serverFile.parsed, diagnostics: [] }))
      .answer('resources.save', (input) => {
        if (!(input as { force: boolean }).force) throw conflict;
        return { ...serverFile, version: 'v3', text: (input as { text: string }).text };
      });
    renderView(backend);

    const draft = SERVER_YAML.replace('npx', 'node');
    fireEvent.change(await editorText(), { target: { value: draft } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));

    const dialog = await screen.findByRole('dialog', { name: 'servers.yaml changed on disk' });
    expect(within(dialog).getByText(/changed on disk since you opened it/)).toBeTruthy();
    expect(within(dialog).getByRole('button', { name: 'Reload from disk' })).toBeTruthy();
    expect((await editorText()).value).toBe(draft);
    expect(backend.callsTo('resources.save')).toEqual([{ path: 'servers.yaml', text: draft, expectedVersion: 'v1', force: false, confirmedLaunchLines: [] }]);

    fireEvent.click(within(dialog).getByRole('button', { name: 'Overwrite' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(backend.callsTo('resources.save')[1]).toEqual({ path: 'servers.yaml', text: draft, expectedVersion: 'v1', force: true, confirmedLaunchLines: [] });
    expect((await editorText()).value).toBe(draft);
  });

  it('keeps a draft when switching to another file and back', async () => {
    const other: WorkspaceFileView = { ...serverFile, path: 'tools.yaml', version: 't1', text: 'kind: Tool\n', parsed: [] };
    const { text: _t, parsed: _p, diagnostics: _d, ...otherSummary } = other;
    const { text: _t2, parsed: _p2, diagnostics: _d2, ...serverSummary } = serverFile;
    const backend = workspaceBackend()
      .answer('resources.files', () => ({ dir: '/work/space', files: [serverSummary, otherSummary] }))
      .answer('resources.read', (input) => ((input as { path: string }).path === 'tools.yaml' ? other : serverFile))
      .answer('resources.validate', () => ({ valid: true, parsed: [], diagnostics: [] }));
    renderView(backend);

    fireEvent.change(await editorText(), { target: { value: 'typed but not saved' } });
    fireEvent.click(await screen.findByRole('listitem', { name: 'tools.yaml' }));
    await waitFor(async () => expect((await editorText()).value).toBe('kind: Tool\n'));
    fireEvent.click(screen.getByRole('listitem', { name: 'servers.yaml' }));
    await waitFor(async () => expect((await editorText()).value).toBe('typed but not saved'));
  });

  it('shows the reconcile status of the file\'s McpServer: phase and generated tools, updated by the watch', async () => {
    const backend = workspaceBackend();
    renderView(backend);

    const status = await screen.findByRole('region', { name: 'Reconcile status' });
    expect(within(status).getByText('Ready')).toBeTruthy();
    expect(within(status).getByText('everything--echo')).toBeTruthy();
    expect(within(status).getByText('everything--add')).toBeTruthy();
    expect(within(status).getByText('3')).toBeTruthy();

    const { text: _text, parsed: _parsed, diagnostics: _diagnostics, ...summary } = serverFile;
    const failing = { ...statuses.mcpServers[0]!, status: { ...statuses.mcpServers[0]!.status, phase: 'Error' as const, lastError: 'spawn npx ENOENT', generatedTools: [] } };
    await waitFor(() => expect(backend.subscriptionsTo('resources.watch')).toHaveLength(1));
    backend.subscriptionsTo('resources.watch')[0]!.emit({ dir: '/work/space', files: [summary], changed: [], statuses: { ...statuses, mcpServers: [failing] } });

    await waitFor(() => expect(within(screen.getByRole('region', { name: 'Reconcile status' })).getByText('Error')).toBeTruthy());
    expect(screen.getByText('spawn npx ENOENT')).toBeTruthy();
    expect(screen.queryByText('everything--echo')).toBeNull();
  });

  it('New file starts from a template of the chosen kind, named as the workspace reads that kind', async () => {
    renderView(workspaceBackend().answer('resources.validate', () => ({ valid: true, parsed: [], diagnostics: [] })));
    await screen.findByRole('list', { name: 'Workspace files' });
    fireEvent.click(screen.getByRole('button', { name: 'New file' }));
    const dialog = await screen.findByRole('dialog', { name: 'New file' });
    const kinds = within(dialog).getAllByRole('radio').map((radio) => radio.getAttribute('value'));
    expect(kinds).toEqual(['McpServer', 'Tool', 'ToolPermission', 'LanguageTool', 'LanguageAgent', 'ClawPod', 'EvalSuite', 'Collection']);
    const name = within(dialog).getByRole('textbox', { name: 'File name' }) as HTMLInputElement;
    expect(name.value).toBe('servers/my-server.yaml');

    fireEvent.click(within(dialog).getByRole('radio', { name: 'Eval suite' }));
    expect(name.value).toBe('evals/my-suite.yml');
    // A suite outside evals/ would not be read as one: refused with the reason.
    fireEvent.change(name, { target: { value: 'suites/mine.yml' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByText('An eval suite lives in the evals/ folder: evals/<name>.yml')).toBeTruthy();
    fireEvent.change(name, { target: { value: 'evals/mine.yml' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }));

    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New file' })).toBeNull());
    expect((await editorText()).value).toBe(RESOURCE_TEMPLATES.find((template) => template.kind === 'EvalSuite')!.text);
    expect(within(screen.getByRole('list', { name: 'Workspace files' })).getByRole('listitem', { name: /evals\/mine\.yml/ })).toBeTruthy();
  });

  it('a link to resources?new=EvalSuite opens New file on the eval suite template (the Evals view’s New suite)', async () => {
    window.history.pushState({}, '', '/resources?new=EvalSuite');
    try {
      renderView(workspaceBackend());
      const dialog = await screen.findByRole('dialog', { name: 'New file' });
      expect((within(dialog).getByRole('radio', { name: 'Eval suite' }) as HTMLInputElement).checked).toBe(true);
      expect((within(dialog).getByRole('textbox', { name: 'File name' }) as HTMLInputElement).value).toBe('evals/my-suite.yml');
      fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
      await waitFor(() => expect(window.location.search).toBe(''));
    } finally {
      window.history.pushState({}, '', '/');
    }
  });

  it('New file → Collection creates the collection in the collections folder under the name given', async () => {
    const backend = workspaceBackend().answer('collections.import', (input) => ({ collection: { name: (input as { name: string }).name, variables: {}, requests: [] }, text: '' }));
    renderView(backend);
    await screen.findByRole('list', { name: 'Workspace files' });
    fireEvent.click(screen.getByRole('button', { name: 'New file' }));
    const dialog = await screen.findByRole('dialog', { name: 'New file' });
    fireEvent.click(within(dialog).getByRole('radio', { name: 'Collection' }));
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Collection name' }), { target: { value: 'smoke' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(backend.callsTo('collections.import')).toHaveLength(1));
    const call = backend.callsTo('collections.import')[0] as { text: string; name: string };
    expect(call.name).toBe('smoke');
    expect(call.text).toMatch(/^name: smoke$/m);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New file' })).toBeNull());
  });

  it('offers to confirm the exact command line of a server the folder may not start yet, and confirms that line only', async () => {
    const line = "FROM=pull '${node}' server.js";
    const awaiting = { ...statuses.mcpServers[0]!, status: { ...statuses.mcpServers[0]!.status, phase: 'Error' as const, lastError: `launch not confirmed: ${line}`, unconfirmedLaunch: line, generatedTools: [] } };
    const backend = workspaceBackend()
      .answer('resources.statuses', () => ({ ...statuses, mcpServers: [awaiting] }))
      .answer('resources.confirmLaunches', () => undefined);
    renderView(backend);

    const status = await screen.findByRole('region', { name: 'Reconcile status' });
    fireEvent.click(within(status).getByRole('button', { name: 'Review the command of everything' }));
    const dialog = await screen.findByRole('dialog', { name: 'Run this command?' });
    expect(within(dialog).getByLabelText('Command line').textContent).toBe(line);
    expect(backend.callsTo('resources.confirmLaunches')).toEqual([]);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Run' }));
    await waitFor(() => expect(backend.callsTo('resources.confirmLaunches')).toEqual([{ lines: [line] }]));
  });

  describe('with a cluster connected', () => {
    /** The plain editor, remembering the schema it was given: what monaco-yaml would check the text against. */
    function schemaSpy() {
      const seen: { schema?: unknown } = {};
      const Editor = (props: YamlEditorProps) => {
        seen.schema = props.schema;
        return <plainYamlEditors.Editor {...props} />;
      };
      return { editors: { ...plainYamlEditors, Editor }, seen };
    }
    const workspaceSchemas = () => ({ document: workspaceDocumentSchema, kinds: RESOURCE_KINDS.map(({ kind, apiVersion, schema }) => ({ kind, apiVersion, schema })) });
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 'two' } };
    const accepts = (schema: unknown, manifest: object) => schemaProblems(schema as Record<string, unknown>, manifest).length === 0;

    it("checks the editor's documents against the cluster's kinds too, and says so", async () => {
      const { editors, seen } = schemaSpy();
      const backend = workspaceBackend()
        .answer('resources.schemas', workspaceSchemas)
        .answer('kube.schemas', () => testCluster);
      renderView(backend, editors);

      const note = await screen.findByLabelText('Schemas of cluster kube-testbed');
      expect(note.textContent).toContain('also cover the 1 kind of cluster kube-testbed.');
      expect(accepts(seen.schema, deployment)).toBe(false);
      expect(accepts(seen.schema, { ...deployment, spec: { replicas: 2 } })).toBe(true);
    });

    it('changes nothing while no cluster is connected', async () => {
      const { editors, seen } = schemaSpy();
      const backend = workspaceBackend()
        .answer('resources.schemas', workspaceSchemas)
        .answer('kube.schemas', () => ({ available: false, reason: 'No cluster is connected' }));
      renderView(backend, editors);

      await editorText();
      await waitFor(() => expect(backend.callsTo('kube.schemas')).toHaveLength(1));
      await waitFor(() => expect(seen.schema).toEqual(workspaceDocumentSchema));
      expect(screen.queryByLabelText(/Schemas of cluster/)).toBeNull();
    });
  });
});
