import { Badge, Group, Paper, Stack, Text } from '@mantine/core';
import type { A2aArtifact, A2aPart } from '../../../../shared/a2a';
import { CopyButton } from '../../components/CopyButton';
import { PartView } from './PartView';

function copyText(parts: A2aPart[]): string {
  return parts.map((p) => (p.kind === 'text' ? p.text : p.kind === 'data' ? JSON.stringify(p.data, null, 2) : (p.url ?? p.filename ?? ''))).join('\n');
}

/** What a task produced, each artifact with its parts rendered by kind. */
export function ArtifactsView({ artifacts, emptyText = 'No artifacts.' }: { artifacts: A2aArtifact[]; emptyText?: string }) {
  return (
    <section aria-label="Artifacts">
      {artifacts.length === 0 ? (
        <Text size="sm" c="dimmed">
          {emptyText}
        </Text>
      ) : (
        <Stack gap="sm">
          {artifacts.map((artifact) => (
            <Paper key={artifact.artifactId} withBorder p="sm" radius="md" aria-label={`Artifact ${artifact.name ?? artifact.artifactId}`} role="article">
              <Group justify="space-between" wrap="nowrap" mb={6}>
                <Group gap={6} style={{ minWidth: 0 }}>
                  <Text fw={600} size="sm" ff="monospace" truncate="end">
                    {artifact.name ?? artifact.artifactId}
                  </Text>
                  {artifact.parts.map((p, i) => (
                    <Badge key={i} size="xs" variant="light" color={p.kind === 'text' ? 'blue' : p.kind === 'data' ? 'grape' : 'orange'}>
                      {p.kind}
                    </Badge>
                  ))}
                </Group>
                <CopyButton value={copyText(artifact.parts)} label={`Copy ${artifact.name ?? artifact.artifactId}`} size="xs" />
              </Group>
              {artifact.description && (
                <Text size="xs" c="dimmed" mb={6}>
                  {artifact.description}
                </Text>
              )}
              <Stack gap="xs">
                {artifact.parts.map((part, i) => (
                  <PartView key={i} part={part} {...(artifact.name ? { name: artifact.name } : {})} />
                ))}
              </Stack>
            </Paper>
          ))}
        </Stack>
      )}
    </section>
  );
}
