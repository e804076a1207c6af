import { describe, expect, it } from 'vitest';
import { sections } from './sections';
import { defaultSectionId, sectionGroups, sectionIds } from './sectionIds';

describe('sections', () => {
  it('give a view to every section id, in the order of the plain list', () => {
    expect(sections.map((section) => section.id)).toEqual([...sectionIds]);
  });

  it('open on the first section above the divider, the one view in the entry chunk', () => {
    expect(sections.find((section) => !section.footer)?.id).toBe(defaultSectionId);
  });

  it('put every section above the divider in exactly one named group, the groups in menu order', () => {
    const grouped = sectionGroups.flatMap((group) => group.ids);
    expect(grouped).toEqual(sections.filter((section) => !section.footer).map((section) => section.id));
    // A newcomer meets the tools of a server before the other source kinds and the registries.
    expect(grouped.indexOf('tools')).toBeLessThan(grouped.indexOf('grpc'));
    expect(grouped.indexOf('tools')).toBeLessThan(grouped.indexOf('discover'));
  });
});
