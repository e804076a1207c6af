import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { InstallPreview, RegistryEntry, SearchPage } from '../../../../shared/mcpRegistry';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { DiscoverView } from './DiscoverView';

const REGISTRY = 'https://registry.example';

const github: RegistryEntry = {
  server: {
    name: 'io.github.example/github',
    title: 'GitHub',
    description: 'Issues and pull requests',
    version: '2.0.0',
    repository: { url: 'https://github.com/example/github-mcp', source: 'github' },
    icons: [{ src: 'data:image/png;base64,iVBORw0KGgo=', theme: 'sepia' }],
    packages: [{ registryType: 'npm', identifier: '@example/github-mcp', version: '2.0.0', transport: { type: 'stdio' }, environmentVariables: [{ name: 'GITHUB_TOKEN', isRequired: true, isSecret: true, description: 'A token' }] }],
  },
  meta: { status: 'deprecated', statusMessage: 'Use io.github.example/github2', isLatest: true },
};
const other: RegistryEntry = { server: { name: 'com.example/other', description: 'Other', version: '1.0.0' }, meta: { status: 'active' } };

function page(overrides: Partial<SearchPage> = {}): SearchPage {
  return { registry: REGISTRY, offline: false, fetchedAt: Date.now(), servers: [github, other], skipped: 0, ...overrides };
}

const preview: InstallPreview = { entry: github, freshness: { registry: REGISTRY, offline: false, fetchedAt: 0 }, serverName: 'github', transport: 'stdio', launch: 'GITHUB_TOKEN=*** npx -y @example/github-mcp@2.0.0', planHash: 'hash-1', warnings: ['io.github.example/github 2.0.0 is deprecated: Use io.github.example/github2.'] };

function backend(searchPage = page()) {
  return new FakeBackend()
    .answer('mcpRegistry.sources', () => [
      { url: 'https://registry.modelcontextprotocol.io', enabled: false, official: true },
      { url: REGISTRY, enabled: true, official: false },
    ])
    .answer('mcpRegistry.updates', () => [{ server: 'time', origin: { registry: REGISTRY, name: 'io.github.example/time', version: '1.0.0', kind: 'pypi' }, latest: '1.1.0' }])
    .answer('mcpRegistry.search', () => searchPage)
    .answer('mcpRegistry.show', () => ({ entry: github, freshness: { registry: REGISTRY, offline: false, fetchedAt: 0 }, versions: { registry: REGISTRY, offline: false, fetchedAt: 0, skipped: 0, versions: [github] } }))
    .answer('mcpRegistry.preview', () => preview)
    .answer('mcpRegistry.install', () => preview);
}

describe('DiscoverView', () => {
  it('searches the enabled registry, shows a server with its status, and installs it only after the exact line is confirmed', async () => {
    const fake = backend();
    renderWithBackend(<DiscoverView />, fake);
    expect(await screen.findByRole('button', { name: 'io.github.example/github' })).toBeInTheDocument();
    expect(fake.callsTo('mcpRegistry.search')[0]).toMatchObject({ registry: REGISTRY });
    expect(await screen.findByText(/time: 1\.0\.0 → 1\.1\.0/)).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'io.github.example/github' }));
    const detail = await screen.findByLabelText('Server io.github.example/github');
    expect(within(detail).getByText('This version is deprecated')).toBeInTheDocument();
    expect(within(detail).getByText('Use io.github.example/github2')).toBeInTheDocument();
    expect(within(detail).getByRole('img', { name: 'Icon of io.github.example/github' })).toHaveAttribute('src', 'data:image/png;base64,iVBORw0KGgo=');

    await userEvent.type(within(detail).getByLabelText(/GITHUB_TOKEN/), 'ghp-secret-value');
    await userEvent.click(within(detail).getByRole('button', { name: 'Review and install' }));
    const line = await screen.findByLabelText('Command line');
    expect(line).toHaveTextContent('GITHUB_TOKEN=*** npx -y @example/github-mcp@2.0.0');
    expect(fake.callsTo('mcpRegistry.install')).toEqual([]);

    await userEvent.click(screen.getByRole('button', { name: 'Install' }));
    await waitFor(() => expect(fake.callsTo('mcpRegistry.install')).toHaveLength(1));
    expect(fake.callsTo('mcpRegistry.install')[0]).toMatchObject({
      name: 'io.github.example/github',
      registry: REGISTRY,
      version: '2.0.0',
      confirmedLaunchLine: 'GITHUB_TOKEN=*** npx -y @example/github-mcp@2.0.0',
      previewHash: 'hash-1',
      choice: { packageIndex: 0, env: { GITHUB_TOKEN: 'ghp-secret-value' } },
    });
  });

  it('names the ways on when the registry cannot be reached, and installs a server.json at hand', async () => {
    const fake = backend().answer('mcpRegistry.search', () => {
      throw { code: 'ConnectionFailed', message: 'Cannot reach the registry https://registry.example (fetch failed), and nothing is cached for this request: add another registry or turn this one off.', retryable: false };
    });
    renderWithBackend(<DiscoverView />, fake);
    expect(await screen.findByText(/add another registry or turn this one off/)).toBeInTheDocument();
    const fromFile = screen.getByLabelText('Install from a server.json');
    const file = new File([JSON.stringify(github.server)], 'server.json', { type: 'application/json' });
    // Mantine's FileInput is a button over a hidden file input.
    await userEvent.upload(fromFile.querySelector<HTMLInputElement>('input[type="file"]')!, file);
    await userEvent.type(await within(fromFile).findByLabelText(/GITHUB_TOKEN/), 'ghp-secret-value');
    await userEvent.click(within(fromFile).getByRole('button', { name: 'Review and install' }));
    await screen.findByLabelText('Command line');
    expect(fake.callsTo('mcpRegistry.preview')[0]).toMatchObject({ name: 'io.github.example/github', document: JSON.stringify(github.server) });
    expect(fake.callsTo('mcpRegistry.preview')[0]).not.toHaveProperty('registry');
  });

  it('says when the answer is from the cache because the registry is offline', async () => {
    renderWithBackend(<DiscoverView />, backend(page({ offline: true, reason: 'fetch failed' })));
    expect(await screen.findByText('Offline: from the cache')).toBeInTheDocument();
    expect(screen.getByText(/could not be reached \(fetch failed\)/)).toBeInTheDocument();
  });

  it("shows the planner's sentence when it refuses an install, and installs nothing", async () => {
    const fake = backend().answer('mcpRegistry.preview', () => {
      throw { code: 'InvalidInput', message: 'The npm package @example/github-mcp of io.github.example/github has the version "^2", which is not one exact release, so it cannot be pinned.', retryable: false };
    });
    renderWithBackend(<DiscoverView />, fake);
    await userEvent.click(await screen.findByRole('button', { name: 'io.github.example/github' }));
    const detail = await screen.findByLabelText('Server io.github.example/github');
    // A required field left empty is caught by the form itself; filled, the backend's refusal is shown.
    await userEvent.click(within(detail).getByRole('button', { name: 'Review and install' }));
    expect(fake.callsTo('mcpRegistry.preview')).toEqual([]);
    await userEvent.type(within(detail).getByLabelText(/GITHUB_TOKEN/), 'ghp-secret-value');
    await userEvent.click(within(detail).getByRole('button', { name: 'Review and install' }));
    expect(await within(detail).findByText(/cannot be pinned/)).toBeInTheDocument();
    expect(fake.callsTo('mcpRegistry.install')).toEqual([]);
  });
});
