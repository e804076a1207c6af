import { test as base } from '@playwright/test';
import { startTooldeckServer, type TooldeckServer } from './tooldeckServer';

/** One `tooldeck serve` per worker; specs open `tooldeck.url` to get a session. */
export const test = base.extend<object, { tooldeck: TooldeckServer }>({
  tooldeck: [
    // Playwright reads fixture dependencies from the destructuring pattern; this one has none.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startTooldeckServer();
      await use(server);
      await server.stop();
    },
    { scope: 'worker' },
  ],
});

export { expect } from '@playwright/test';
