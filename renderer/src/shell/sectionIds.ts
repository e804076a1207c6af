/**
 * The console's sections by id, in menu order. A plain list, so that whatever navigates (the URL
 * reader, and every feature linking to another) names a section without importing its view;
 * shell/sections.tsx gives each id its label, icon and view.
 *
 * The order follows a newcomer's path (the README's): connect a server, see its tools, try them,
 * then operate agents, watch what happened, and configure. `sectionGroups` cuts it into the
 * navigation's named groups.
 */
export const sectionIds = ['servers', 'tools', 'playground', 'evals', 'collections', 'agents', 'grpc', 'gateway', 'agentRights', 'mediation', 'approvals', 'bus', 'cluster', 'history', 'metrics', 'resources', 'discover', 'about'] as const;
export type SectionId = (typeof sectionIds)[number];

/** The navigation's groups, by what the operator is doing; every section but About (below the divider) is in one, in sectionIds' order. */
export const sectionGroups = [
  { label: 'Build & test', ids: ['servers', 'tools', 'playground', 'evals', 'collections', 'agents', 'grpc'] },
  { label: 'Operate', ids: ['gateway', 'agentRights', 'mediation', 'approvals', 'bus', 'cluster'] },
  { label: 'Observe', ids: ['history', 'metrics'] },
  { label: 'Configure', ids: ['resources', 'discover'] },
] as const satisfies ReadonlyArray<{ label: string; ids: readonly SectionId[] }>;

/** The first view: the one section whose code is in the entry chunk. */
export const defaultSectionId: SectionId = 'servers';

export function isSectionId(id: string | undefined): id is SectionId {
  return (sectionIds as readonly string[]).includes(id ?? '');
}
