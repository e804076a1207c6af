/**
 * The console's sections by id, in menu order. A plain list, so that whatever navigates (the URL
 * reader, and every feature linking to another) names a section without importing its view;
 * shell/sections.tsx gives each id its label, icon and view.
 */
export const sectionIds = ['servers', 'discover', 'agents', 'grpc', 'tools', 'gateway', 'bus', 'mediation', 'playground', 'evals', 'approvals', 'resources', 'cluster', 'collections', 'history', 'metrics', 'about'] as const;
export type SectionId = (typeof sectionIds)[number];

/** The first view: the one section whose code is in the entry chunk. */
export const defaultSectionId: SectionId = 'servers';

export function isSectionId(id: string | undefined): id is SectionId {
  return (sectionIds as readonly string[]).includes(id ?? '');
}
