import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ServerSnapshot } from '../../../shared/mcp';
import type { SearchHit } from '../../../shared/registry';
import { FakeBackend, renderWithBackend } from '../features/invoke/testing/FakeBackend';
import { CommandPalette, nameMatch, openCommandPalette } from './CommandPalette';

/** A saved server as mcp.list returns it; the palette reads only its name, transport and status. */
function server(name: string): ServerSnapshot {
  return { config: { name, transport: 'stdio' }, state: { status: 'connected' } } as unknown as ServerSnapshot;
}

const tool = (source: string, name: string, score: number, description?: string): SearchHit => ({
  id: `mcp:${source}.${name}`,
  kind: 'tool',
  name,
  source: `mcp:${source}`,
  score,
  ...(description ? { description } : {}),
});

/** The palette on a backend whose registry search answers `hits[query]` (nothing for the partial queries typed on the way). */
async function search(query: string, { servers = [], hits = [] }: { servers?: ServerSnapshot[]; hits?: SearchHit[] }) {
  const user = userEvent.setup();
  const fake = new FakeBackend().answer('mcp.list', () => servers).answer('tools.search', (input) => ((input as { query: string }).query === query ? hits : []));
  renderWithBackend(<CommandPalette />, fake);
  act(() => openCommandPalette());
  await user.type(screen.getByRole('textbox', { name: 'Command palette search' }), query);
  return fake;
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
