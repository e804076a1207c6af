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
// Mantine's Combobox scrolls the selected option into view from a timer (a Select opened in a test).
Element.prototype.scrollIntoView ??= function scrollIntoView() {};
