import { Badge, Group, Stack, Text, UnstyledButton } from '@mantine/core';
import { IconFileCode, IconFileDots } from '@tabler/icons-react';
import type { WorkspaceFileSummary } from '../../../../shared/resources/workspace';

export interface FileListProps {
  files: WorkspaceFileSummary[];
  /** New files typed but not saved yet. */
  unsaved: string[];
  /** Files with a draft that differs from the file. */
  dirty: string[];
  selected: string | undefined;
  onSelect: (path: string) => void;
}

/** The workspace files, with their error and warning counts. */
export function FileList({ files, unsaved, dirty, selected, onSelect }: FileListProps) {
  const rows = [...files.map((file) => ({ path: file.path, file })), ...unsaved.map((path) => ({ path, file: undefined }))];
  return (
    <Stack gap={2} role="list" aria-label="Workspace files">
      {rows.length === 0 && (
        <Text size="sm" c="dimmed" p="xs">
          No YAML files in this folder yet.
        </Text>
      )}
      {rows.map(({ path, file }) => {
        const active = path === selected;
        const Icon = file ? IconFileCode : IconFileDots;
        return (
          <UnstyledButton
            key={path}
            role="listitem"
            aria-label={path}
            aria-current={active ? 'true' : undefined}
            onClick={() => onSelect(path)}
            px="xs"
            py={6}
            style={{ borderRadius: 8, background: active ? 'var(--mantine-color-default-hover)' : undefined }}
          >
            <Group gap="xs" wrap="nowrap">
              <Icon size={16} aria-hidden style={{ flexShrink: 0, opacity: 0.7 }} />
              <Text size="sm" fw={active ? 600 : 500} truncate="end" style={{ flex: 1, minWidth: 0 }} title={path}>
                {path}
                {dirty.includes(path) && (
                  <Text span c="dimmed" aria-label="unsaved changes">
                    {' '}
                    •
                  </Text>
                )}
              </Text>
              {!file && (
                <Badge size="xs" variant="light" color="gray">
                  new
                </Badge>
              )}
              {file && file.errors > 0 && (
                <Badge size="xs" variant="light" color="red" title={`${file.errors} errors`}>
                  {file.errors}
                </Badge>
              )}
              {file && file.warnings > 0 && (
                <Badge size="xs" variant="light" color="yellow" title={`${file.warnings} warnings`}>
                  {file.warnings}
                </Badge>
              )}
            </Group>
          </UnstyledButton>
        );
      })}
    </Stack>
  );
}
