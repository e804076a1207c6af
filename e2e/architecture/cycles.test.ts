import madge from 'madge';
import { describe, expect, it } from 'vitest';

// An import cycle means two files can only be understood (and loaded) together. Type imports count
// too: a type-only loop still ties the two files' designs together.
const root = new URL('../..', import.meta.url).pathname;
const folders = ['main', 'app', 'renderer/src', 'shared'];

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
      expect(graph.circular().map((cycle) => cycle.join(' > ')), 'import cycles').toEqual([]);
    },
    180_000,
  );
});
