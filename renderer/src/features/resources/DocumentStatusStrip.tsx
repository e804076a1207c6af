import { Anchor, Badge, Group, Stack, Text } from '@mantine/core';
import { useNavigate } from '../../shell/useSection';
import type { ResourceStatuses } from '../../../../shared/resources/statuses';
import type { ParsedDocument } from '../../../../shared/resources/workspace';
import { phaseColor } from './phaseColor';

export interface DocumentStatusStripProps {
  file: string;
  documents: ParsedDocument[];
  statuses: ResourceStatuses | undefined;
}

/** The phase the local target reports for a document, for the kinds it reconciles. */
export function statusPhaseOf(file: string, doc: ParsedDocument, statuses: ResourceStatuses | undefined): string | undefined {
  if (!statuses) return undefined;
  const at = (source?: { file: string; document: number }) => source?.file === file && source.document === doc.index;
  if (doc.kind === 'McpServer') return statuses.mcpServers.find((s) => at(s.source))?.status.phase;
  if (doc.kind === 'Tool') return statuses.tools.find((t) => !t.generated && at(t.source))?.status.phase;
  if (doc.kind === 'ToolPermission') return statuses.toolPermissions.find((p) => at(p.source))?.status.phase;
  return undefined;
}

/** One line per document of the file: kind, name, whether it is valid and its local phase. */
export function DocumentStatusStrip({ file, documents, statuses }: DocumentStatusStripProps) {
  const navigate = useNavigate();
  return (
    <Stack gap={4} role="list" aria-label="Documents">
      {documents.length === 0 && (
        <Text size="sm" c="dimmed">
          No documents.
        </Text>
      )}
      {documents.map((doc) => {
        const phase = statusPhaseOf(file, doc, statuses);
        return (
          <Group key={doc.index} role="listitem" gap={6} wrap="nowrap" aria-label={`${doc.kind ?? 'Document'} ${doc.name ?? doc.index + 1}`}>
            <Badge size="xs" variant="outline" color="gray" style={{ flexShrink: 0 }}>
              {doc.kind ?? '?'}
            </Badge>
            <Text size="sm" truncate="end" style={{ flex: 1, minWidth: 0 }}>
              {doc.name ?? `document ${doc.index + 1}`}
            </Text>
            {!doc.valid && (
              <Badge size="xs" color="red" variant="light">
                invalid
              </Badge>
            )}
            {phase && (
              <Badge size="xs" color={phaseColor(phase)} variant="dot">
                {phase}
              </Badge>
            )}
            {doc.kind === 'ClawPod' && doc.valid && (
              <Anchor size="xs" onClick={() => navigate('tools', { view: 'agents' })} style={{ flexShrink: 0 }}>
                Agent access
              </Anchor>
            )}
          </Group>
        );
      })}
    </Stack>
  );
}
