import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => cleanup());

// Mantine reads these browser APIs that jsdom lacks.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});
class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= ResizeObserverStub as unknown as typeof ResizeObserver;
// Mantine's autosizing Textarea listens for web fonts finishing loading.
if (!document.fonts) Object.defineProperty(document, 'fonts', { value: new EventTarget() });

// @rjsf/mantine (an ES module package) imports `dayjs/plugin/customParseFormat` without its `.js`,
// which bundlers accept and Node's own loader, used for packages Vitest leaves external, refuses.
interface ResolveHooks {
  resolve(specifier: string, context: unknown, next: (specifier: string, context: unknown) => unknown): unknown;
}
const nodeProcess = (globalThis as unknown as { process: { getBuiltinModule(id: 'node:module'): { registerHooks(hooks: ResolveHooks): unknown } } }).process;
nodeProcess.getBuiltinModule('node:module').registerHooks({
  resolve: (specifier, context, next) => next(/^dayjs\/plugin\/\w+$/.test(specifier) ? `${specifier}.js` : specifier, context),
});
