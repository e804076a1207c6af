import madge from 'madge';
import { describe, expect, it } from 'vitest';

// An import cycle means two files can only be understood (and loaded) together. Type imports count
// too: a type-only loop still ties the two files' designs together.
const root = new URL('../..', import.meta.url).pathname;
const folders = ['main', 'app', 'renderer/src', 'shared'];

/** Cycles known today, each written as madge prints it; this list only ever shrinks. */
const knownCycles: string[] = [
  'app/cli/CliContext.ts > app/cli/launchConfirmation.ts',
  'app/cli/CliContext.ts > app/cli/launchConfirmation.ts > app/cli/terminalText.ts',
  'main/core.ts > main/collections/Collections.ts',
  'main/core.ts > main/collections/Collections.ts > main/registry/prepareSource.ts',
  'app/cli/commands/mcp.ts > app/cli/commands/mcpTasks.ts',
  'renderer/src/shell/sections.tsx > renderer/src/features/agents/AgentsView.tsx > renderer/src/features/agents/AgentDetail.tsx > renderer/src/shell/useSection.tsx',
];

describe('import graph', () => {
  it(
    `has no cycles in ${folders.join(', ')} (type imports included)`,
    async () => {
      const graph = await madge(folders, {
        baseDir: root,
        fileExtensions: ['ts', 'tsx'],
        tsConfig: `${root}tsconfig.base.json`,
        detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
      });
      const cycles = graph.circular().map((cycle) => cycle.join(' > '));
      expect(cycles.filter((cycle) => !knownCycles.includes(cycle)), 'new import cycles').toEqual([]);
      expect(knownCycles.filter((cycle) => !cycles.includes(cycle)), 'cycles that are gone: remove them from knownCycles').toEqual([]);
    },
    180_000,
  );
});
