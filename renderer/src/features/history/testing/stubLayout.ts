import { afterAll, beforeAll } from 'vitest';

/**
 * jsdom lays nothing out: virtualized lists need a viewport height to render rows into, charts a
 * box to draw in, and Mantine's comboboxes scroll the active option into view. Every element gets
 * the same fixed box. Call at the top of a test file.
 */
export function stubLayout(width = 800, height = 600) {
  const originals = {
    clientHeight: Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight'),
    getBoundingClientRect: Object.getOwnPropertyDescriptor(Element.prototype, 'getBoundingClientRect'),
    scrollIntoView: Object.getOwnPropertyDescriptor(Element.prototype, 'scrollIntoView'),
  };
  beforeAll(() => {
    Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => height });
    Object.defineProperty(Element.prototype, 'getBoundingClientRect', { configurable: true, value: () => new DOMRect(0, 0, width, height) });
    Object.defineProperty(Element.prototype, 'scrollIntoView', { configurable: true, value: () => {} });
  });
  afterAll(() => {
    if (originals.clientHeight) Object.defineProperty(HTMLElement.prototype, 'clientHeight', originals.clientHeight);
    if (originals.getBoundingClientRect) Object.defineProperty(Element.prototype, 'getBoundingClientRect', originals.getBoundingClientRect);
    if (originals.scrollIntoView) Object.defineProperty(Element.prototype, 'scrollIntoView', originals.scrollIntoView);
    else delete (Element.prototype as Partial<Element>).scrollIntoView;
  });
}
