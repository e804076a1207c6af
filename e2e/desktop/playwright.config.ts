import { defineConfig } from '@playwright/test';

// The installed desktop app, launched with Playwright's Electron support. Needs a packaged app
// (TOOLDECK_PACKAGED_APP, see .github/workflows/desktop.yml), so the default e2e run leaves it out.
export default defineConfig({
  testDir: '.',
  testMatch: 'packaged.spec.ts',
  outputDir: '../../test-results/desktop',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 180_000,
  expect: { timeout: 30_000 },
  reporter: [['list']],
  use: { screenshot: 'only-on-failure', trace: 'retain-on-failure' },
});
