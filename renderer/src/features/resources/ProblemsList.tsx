import { Group, Stack, Text, UnstyledButton } from '@mantine/core';
import { IconAlertTriangle, IconCircleX } from '@tabler/icons-react';
import type { Diagnostic } from '../../../../shared/resources/diagnostics';

export interface ProblemsListProps {
  file: string;
  diagnostics: Diagnostic[];
  onSelect: (diagnostic: Diagnostic) => void;
}

/** The backend's diagnostics of the draft: where (line, column, field path) and what. */
export function ProblemsList({ file, diagnostics, onSelect }: ProblemsListProps) {
  const sorted = [...diagnostics].sort((a, b) => a.line - b.line || a.column - b.column);
  return (
    <Stack gap={0} role="list" aria-label="Problems">
      {sorted.length === 0 && (
        <Text size="sm" c="dimmed" px="xs" py={4}>
          No problems.
        </Text>
      )}
      {sorted.map((d, i) => {
        const Icon = d.severity === 'error' ? IconCircleX : IconAlertTriangle;
        return (
          <UnstyledButton key={i} role="listitem" onClick={() => onSelect(d)} px="xs" py={4} style={{ borderRadius: 6 }} className="resources-problem">
            <Group gap="xs" wrap="nowrap" align="flex-start">
              <Icon size={16} color={`var(--mantine-color-${d.severity === 'error' ? 'red' : 'yellow'}-6)`} aria-label={d.severity} style={{ flexShrink: 0, marginTop: 2 }} />
              <Text size="sm" style={{ flex: 1, minWidth: 0 }}>
                {d.path && (
                  <Text span ff="monospace" size="xs" fw={600} mr={6}>
                    {d.path}
                  </Text>
                )}
                {d.message}
              </Text>
              <Text size="xs" c="dimmed" ff="monospace" style={{ flexShrink: 0 }}>
                {file}:{d.line}:{d.column}
              </Text>
            </Group>
          </UnstyledButton>
        );
      })}
    </Stack>
  );
}
