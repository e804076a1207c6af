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

/** Opens a section from the sidebar (scoped to it: pages have buttons with the same words). */
export async function openSection(page: import('@playwright/test').Page, name: string) {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name, exact: true }).click();
}
