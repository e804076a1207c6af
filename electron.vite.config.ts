import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

// One build, four products: the Electron main process, its preload, the renderer (shared by
// Electron and browser mode) and the headless CLI (which also hosts the browser-mode server).
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // Bundled rather than loaded from node_modules: their deep imports (ajv/dist/2020) have no
      // file extension, which Node's ESM loader refuses.
      externalizeDeps: { exclude: ['ajv', 'ajv-formats'] },
      rollupOptions: {
        input: {
          index: resolve(import.meta.dirname, 'app/electron/main.ts'),
          cli: resolve(import.meta.dirname, 'app/cli/main.ts'),
        },
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { preload: resolve(import.meta.dirname, 'app/electron/preload.ts') },
        // Sandboxed preloads must be CommonJS.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(import.meta.dirname, 'renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(import.meta.dirname, 'out/renderer'),
      // electron-vite leaves code unminified; the page loads faster minified (the Servers view's JS
      // is measured by `npm run bench -- ui`).
      minify: true,
      chunkSizeWarningLimit: 4096,
      rollupOptions: { input: resolve(import.meta.dirname, 'renderer/index.html') },
    },
  },
});
