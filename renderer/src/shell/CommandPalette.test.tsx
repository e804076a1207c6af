import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { GrpcSourceView } from '../../../shared/grpc';
import type { HttpServiceView } from '../../../shared/httpServices';
import type { ServerOrigin, ServerSnapshot } from '../../../shared/mcp';
import type { SearchHit } from '../../../shared/registry';
import type { McpServerResourceView, ResourceStatuses } from '../../../shared/resources/statuses';
import { FakeBackend, renderWithBackend } from '../features/invoke/testing/FakeBackend';
import { CommandPalette, nameMatch, openCommandPalette } from './CommandPalette';

/** A server as mcp.list returns it; the palette reads only its name, transport, status and origin. */
function server(name: string, origin: ServerOrigin = { kind: 'saved' }): ServerSnapshot {
  return { config: { name, transport: 'stdio' }, state: { status: 'ready' }, origin } as unknown as ServerSnapshot;
}

/** An McpServer resource of the workspace as resources.statuses reports it. */
function resource(name: string, file: string, status: Partial<McpServerResourceView['status']> = {}): McpServerResourceView {
  return {
    name,
    namespace: 'default',
    generation: 1,
    source: { file, document: 0 },
    status: { phase: 'Ready', discoveredTools: [], generatedTools: [], observedGeneration: 1, attempts: 0, ...status },
  };
}

const tool = (source: string, name: string, score: number, description?: string): SearchHit => ({
  id: `mcp:${source}.${name}`,
  kind: 'tool',
  name,
  source: `mcp:${source}`,
  score,
  ...(description ? { description } : {}),
});

/** A gRPC source as grpc.list returns it; the palette reads its name, protocol, state, error, address and counts. */
function grpcSource(name: string, view: Partial<GrpcSourceView> = {}): GrpcSourceView {
  return { name, address: '127.0.0.1:50051', protocol: 'tools.v1', tls: { mode: 'plaintext', customCa: false, clientCertificate: false }, metadataKeys: [], state: 'ready', tools: [], services: [], ...view };
}

/** The palette on a backend whose registry search answers `hits[query]` (nothing for the partial queries typed on the way). */
async function search(
  query: string,
  { servers = [], hits = [], workspace = [], grpc = [], http = [] }: { servers?: ServerSnapshot[]; hits?: SearchHit[]; workspace?: McpServerResourceView[]; grpc?: GrpcSourceView[]; http?: HttpServiceView[] },
) {
  const user = userEvent.setup();
  const fake = new FakeBackend()
    .answer('mcp.list', () => servers)
    .answer('grpc.list', () => grpc)
    .answer('http.list', () => http)
    .answer('resources.statuses', (): ResourceStatuses => ({ mcpServers: workspace, tools: [], toolPermissions: [] }))
    .answer('tools.search', (input) => ((input as { query: string }).query === query ? hits : []));
  renderWithBackend(<CommandPalette />, fake);
  act(() => openCommandPalette());
  await user.type(screen.getByRole('textbox', { name: 'Command palette search' }), query);
  return { fake, user };
}

/** What a server action says under its name. */
function descriptionOf(name: string): string | null | undefined {
  const list = screen.getByLabelText('Command palette results');
  const button = within(list)
    .getAllByRole('button')
    .find((b) => b.querySelector('.mantine-Spotlight-actionLabel')?.textContent === name);
  return button?.querySelector('.mantine-Spotlight-actionDescription')?.textContent;
}

/** Every action in the order shown, with the group it is under (Spotlight draws group labels from a CSS variable). */
function shown(): Array<{ name: string; group: string }> {
  const list = screen.getByLabelText('Command palette results');
  return within(list)
    .getAllByRole('button')
    .map((button) => ({
      name: button.getAttribute('aria-label') ?? button.querySelector('.mantine-Spotlight-actionLabel')?.textContent ?? '',
      group: (button.closest<HTMLElement>('.mantine-Spotlight-actionsGroup')?.style.getPropertyValue('--spotlight-label') ?? '').replace(/^'|'$/g, ''),
    }));
}

describe('CommandPalette ranking', () => {
  it('puts the server named exactly as typed first, above tool hits, and drops hits that only mention it', async () => {
    await search('github', {
      servers: [server('gitlab'), server('github-enterprise'), server('github')],
      hits: [
        // Tools of the github server match on their source only: beside the server itself they are padding.
        tool('github', 'create_issue', 1),
        tool('github', 'search_code', 0.8),
        tool('sync', 'github_sync', 0.5),
        tool('notes', 'append_note', 0.1, 'Keeps notes, e.g. about GitHub'),
      ],
    });
    await screen.findByRole('button', { name: 'Tool mcp:sync.github_sync' });
    expect(shown()).toEqual([
      { name: 'github', group: 'Best match' },
      { name: 'Tool mcp:sync.github_sync', group: 'Tools and skills' },
      { name: 'github-enterprise', group: 'Servers' },
    ]);
  });

  it('puts the section named exactly as typed above the best-scoring tool', async () => {
    await search('history', { hits: [tool('archive', 'history_export', 1)] });
    await screen.findByRole('button', { name: 'Tool mcp:archive.history_export' });
    expect(shown()).toEqual([
      { name: 'Go to History', group: 'Best match' },
      { name: 'Tool mcp:archive.history_export', group: 'Tools and skills' },
    ]);
  });

  it('puts an agent named exactly as typed above a tool the search scored higher', async () => {
    await search('planner', { hits: [tool('ops', 'planner_run', 1), { id: 'planner', kind: 'agent', name: 'planner', score: 0.6, source: 'a2a' }] });
    await screen.findByRole('button', { name: 'Agent planner' });
    expect(shown()).toEqual([
      { name: 'Agent planner', group: 'Best match' },
      { name: 'Tool mcp:ops.planner_run', group: 'Tools and skills' },
    ]);
  });

  it('without an exact match, lists real matches in search order and leaves weak ones out', async () => {
    await search('ech', {
      servers: [server('tech-docs'), server('echo-server')],
      hits: [tool('everything', 'echo', 1), tool('everything', 'echo_many', 0.9), tool('everything', 'each', 0.2, 'Runs for each item')],
    });
    await screen.findByRole('button', { name: 'Tool mcp:everything.echo' });
    // "each" scored a fifth of the best hit, and "ech" inside "tech-docs" is not the start of a word.
    expect(shown()).toEqual([
      { name: 'Tool mcp:everything.echo', group: 'Tools and skills' },
      { name: 'Tool mcp:everything.echo_many', group: 'Tools and skills' },
      { name: 'echo-server', group: 'Servers' },
    ]);
  });
});

describe('CommandPalette servers', () => {
  it("shows each server's origin, saved or the workspace file, as the Servers list does", async () => {
    await search('every', {
      servers: [server('everything', { kind: 'workspace', file: 'everything.yaml' }), server('everyday')],
      workspace: [resource('everything', 'everything.yaml')],
    });
    await screen.findByText('everyday');
    expect(shown()).toEqual([
      { name: 'everything', group: 'Servers' },
      { name: 'everyday', group: 'Servers' },
    ]);
    expect(descriptionOf('everything')).toBe('stdio server · ready · workspace · everything.yaml');
    expect(descriptionOf('everyday')).toBe('stdio server · ready · saved');
  });

  it('lists a workspace server the MCP service does not hold, with its error, and leads to its file', async () => {
    const { user } = await search('broken', {
      servers: [server('everything', { kind: 'workspace', file: 'everything.yaml' })],
      workspace: [
        resource('everything', 'everything.yaml'),
        resource('broken', 'broken.yaml', { phase: 'Error', lastError: 'spec.url: Invalid URL' }),
        resource('broken-twin', 'twin.yaml', { phase: 'Pending' }),
      ],
    });
    await screen.findByText('broken-twin');
    expect(shown()).toEqual([
      { name: 'broken', group: 'Best match' },
      { name: 'broken-twin', group: 'Servers' },
    ]);
    expect(descriptionOf('broken')).toBe('not connected · Error: spec.url: Invalid URL · workspace · broken.yaml');
    expect(descriptionOf('broken-twin')).toBe('not connected · Pending · workspace · twin.yaml');
    await user.click(screen.getByText('broken'));
    expect(`${window.location.pathname}${window.location.search}`).toBe('/resources?file=broken.yaml');
  });

  it('lists a second McpServer claiming a held name from another file, but not the one it holds or one a saved server shadows', async () => {
    await search('everything', {
      servers: [server('everything', { kind: 'workspace', file: 'everything.yaml' }), server('everything-saved')],
      workspace: [
        resource('everything', 'everything.yaml'),
        resource('everything', 'copy.yaml', { phase: 'Error', lastError: 'Another McpServer named "everything" (everything.yaml) owns that server name' }),
        resource('everything-saved', 'shadowed.yaml'),
      ],
    });
    await screen.findByText(/copy\.yaml/);
    expect(shown().map((item) => item.name)).toEqual(['everything', 'everything', 'everything-saved']);
    const descriptions = within(screen.getByLabelText('Command palette results'))
      .getAllByRole('button')
      .map((b) => b.querySelector('.mantine-Spotlight-actionDescription')?.textContent);
    expect(descriptions).toEqual([
      'stdio server · ready · workspace · everything.yaml',
      'not connected · Error: Another McpServer named "everything" (everything.yaml) owns that server name · workspace · copy.yaml',
      'stdio server · ready · saved',
    ]);
  });
});

describe('CommandPalette sources of every kind', () => {
  it('lists gRPC sources and HTTP services beside MCP servers, each saying what it is, and leads to the gRPC view', async () => {
    const mirror = { name: 'mirror', description: 'Reverses a text', version: '1.0.0', compatibleVersions: [], callVersion: '1.0.0', registryName: 'grpc:hid.mirror' };
    const { user } = await search('hid', {
      servers: [server('hidden-docs')],
      grpc: [grpcSource('hid', { tools: [mirror, { ...mirror, name: 'shout', registryName: 'grpc:hid.shout' }] as GrpcSourceView['tools'] }), grpcSource('other')],
      http: [{ service: 'hid-api', location: 'hid-api.yaml', baseUrl: 'http://127.0.0.1:8081', tools: ['lookup'] }],
    });
    await screen.findByText('hid-api');
    expect(shown()).toEqual([
      { name: 'hid', group: 'Best match' },
      { name: 'hidden-docs', group: 'Servers' },
      { name: 'hid-api', group: 'Servers' },
    ]);
    expect(descriptionOf('hid')).toBe('gRPC tools.v1 · 2 tools · ready · 127.0.0.1:50051');
    expect(descriptionOf('hid-api')).toBe('HTTP service · 1 tool · http://127.0.0.1:8081');
    await user.click(screen.getByText('hid'));
    expect(`${window.location.pathname}${window.location.search}`).toBe('/grpc?source=hid');
  });

  it('says why a gRPC source could not be listed', async () => {
    await search('shapes', {
      grpc: [grpcSource('shapes', { protocol: 'reflection', state: 'error', error: { code: 'ConnectionFailed', message: 'connect ECONNREFUSED 127.0.0.1:50051', retryable: true } })],
    });
    await screen.findByText('shapes');
    expect(descriptionOf('shapes')).toBe('gRPC reflection · 0 methods · error: connect ECONNREFUSED 127.0.0.1:50051 · 127.0.0.1:50051');
  });

  it('shows a gRPC tool and an A2A skill the search found, under tools and skills', async () => {
    await search('reverse', {
      hits: [
        { id: 'grpc:hid.mirror', kind: 'tool', name: 'mirror', source: 'grpc:hid', score: 1, description: 'Reverses a text' },
        { id: 'a2a:sample.flip', kind: 'skill', name: 'Flip', source: 'a2a:sample', score: 0.9, description: 'Reverses the words of a message' },
      ],
    });
    await screen.findByRole('button', { name: 'Tool grpc:hid.mirror' });
    expect(shown()).toEqual([
      { name: 'Tool grpc:hid.mirror', group: 'Tools and skills' },
      { name: 'Skill a2a:sample.flip', group: 'Tools and skills' },
    ]);
  });
});

describe('CommandPalette by keyboard', () => {
  it('runs the first match on Enter, the best match preselected once the registry has answered', async () => {
    const { user } = await search('ech', { hits: [tool('everything', 'echo', 1), tool('everything', 'echo_many', 0.9)] });
    const first = await screen.findByRole('button', { name: 'Tool mcp:everything.echo' });
    await waitFor(() => expect(first).toHaveAttribute('data-selected', 'true'));
    expect(screen.getByRole('button', { name: 'Tool mcp:everything.echo_many' })).not.toHaveAttribute('data-selected');
    await user.keyboard('{Enter}');
    expect(`${window.location.pathname}${window.location.search}`).toBe(`/tools?${new URLSearchParams({ tool: 'mcp:everything.echo' })}`);
  });

  it('moves the selection to the new first action when the list changes, and ArrowDown goes on from there', async () => {
    const { user } = await search('history', { hits: [tool('archive', 'history_export', 1)] });
    await screen.findByRole('button', { name: 'Tool mcp:archive.history_export' });
    const section = screen.getByRole('button', { name: 'Go to History' });
    await waitFor(() => expect(section).toHaveAttribute('data-selected', 'true'));
    await user.keyboard('{ArrowDown}{Enter}');
    expect(`${window.location.pathname}${window.location.search}`).toBe(`/tools?${new URLSearchParams({ tool: 'mcp:archive.history_export' })}`);
  });
});

describe('nameMatch', () => {
  it('tells exact, prefix and word-start matches apart and refuses letters inside a word', () => {
    expect(nameMatch('GitHub', 'github')).toBe('exact');
    expect(nameMatch('github-enterprise', 'github')).toBe('prefix');
    expect(nameMatch('eu-prod-db', 'prod')).toBe('word');
    expect(nameMatch('createIssue', 'issue')).toBe('word');
    expect(nameMatch('everything', 'thing')).toBeUndefined();
    expect(nameMatch('anything', '')).toBeUndefined();
  });
});
