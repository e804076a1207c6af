import type { ResourceMetadata } from '../../../shared/resources/meta';
import { ClawDescriptor } from '../../http/ClawDescriptor';
import type { RawObject } from './fieldReaders';
import { zodMessage } from './normalizeLanguageOperator';
import type { ResourceIssues } from './ResourceIssues';

export interface ClawDescriptorObject {
  kind: 'ClawDescriptor';
  /** The service the descriptor describes, from the file name (`<service>.claw-describe.json`). */
  metadata: ResourceMetadata;
  descriptor: ClawDescriptor;
}

/** Clawdapus descriptor, validated by the registry's own parser (the one HTTP tools are loaded with). */
export function normalizeClawDescriptor(raw: RawObject, service: string, issues: ResourceIssues): ClawDescriptorObject {
  const parsed = ClawDescriptor.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) issues.error(issue.path.map((part) => (typeof part === 'number' ? part : String(part))), zodMessage(issue));
  }
  return { kind: 'ClawDescriptor', metadata: { name: service }, descriptor: parsed.success ? parsed.data : ({ version: 2 } as ClawDescriptor) };
}
