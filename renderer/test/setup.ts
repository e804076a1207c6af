import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => cleanup());

// findBy* and waitFor wait for a condition; on a loaded machine one second (the default) is not
// always enough for a render and a round of form validation, and a test must not fail on time.
configure({ asyncUtilTimeout: 10_000 });

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
// Mantine's Combobox scrolls the selected option into view from a timer (a Select opened in a test).
Element.prototype.scrollIntoView ??= function scrollIntoView() {};
