import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['shared/**/*.test.ts', 'main/**/*.test.ts', 'app/**/*.test.ts', 'e2e/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [react()],
        test: {
          name: 'renderer',
          environment: 'jsdom',
          include: ['renderer/**/*.test.{ts,tsx}'],
          setupFiles: ['renderer/test/setup.ts'],
          // Its ESM build imports dayjs plugins without file extensions, which Node refuses.
          server: { deps: { inline: ['@rjsf/mantine'] } },
          testTimeout: 15_000,
        },
      },
    ],
  },
});
