import { describe, expect, it } from 'vitest';
import { sections } from './sections';
import { defaultSectionId, sectionIds } from './sectionIds';

describe('sections', () => {
  it('give a view to every section id, in the order of the plain list', () => {
    expect(sections.map((section) => section.id)).toEqual([...sectionIds]);
  });

  it('open on the first section above the divider, the one view in the entry chunk', () => {
    expect(sections.find((section) => !section.footer)?.id).toBe(defaultSectionId);
  });
});
