import { ActionIcon, Badge, Button, Group, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { IconDeviceFloppy, IconLock, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { VariableName } from '../../../../shared/collections';
import { secretReference } from './requestDraft';

interface Row {
  name: string;
  value: string;
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Strings stay strings; other values were written as JSON and are read back as such. */
function valueOf(text: string, wasString: boolean): unknown {
  if (wasString) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A collection's variables; `{{secret:NAME}}` values are references to the secret store, shown as such. */
export function VariablesEditor({ variables, saving, onSave }: { variables: Record<string, unknown>; saving: boolean; onSave: (variables: Record<string, unknown>) => void }) {
  const [rows, setRows] = useState<Row[]>(() => Object.entries(variables).map(([name, value]) => ({ name, value: textOf(value) })));
  const update = (index: number, patch: Partial<Row>) => setRows((r) => r.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  const names = rows.map((r) => r.name.trim());
  const problem = names.find((n) => !VariableName.safeParse(n).success) !== undefined ? 'Variable names: letters, digits, "_", "." and "-", not starting with a digit' : new Set(names).size !== names.length ? 'Two variables have the same name' : undefined;

  const save = () => onSave(Object.fromEntries(rows.map((r) => [r.name.trim(), valueOf(r.value, typeof variables[r.name.trim()] === 'string' || !(r.name.trim() in variables))])));

  return (
    <Stack gap="xs" role="group" aria-label="Variables">
      <Text size="sm" c="dimmed">
        Used as {'{{name}}'} in arguments and assertions. Write {'{{secret:NAME}}'} for a value kept in the secret store; an environment overrides these when run from the command line.
      </Text>
      {rows.map((row, index) => {
        const secret = secretReference(row.value);
        return (
          <Group key={index} gap="xs" wrap="nowrap">
            <TextInput size="xs" w={200} ff="monospace" aria-label={`Variable ${index + 1} name`} placeholder="name" value={row.name} onChange={(e) => update(index, { name: e.currentTarget.value })} />
            <TextInput
              size="xs"
              style={{ flex: 1 }}
              ff="monospace"
              aria-label={`Variable ${index + 1} value`}
              value={row.value}
              onChange={(e) => update(index, { value: e.currentTarget.value })}
              leftSection={secret ? <IconLock size={14} aria-hidden /> : undefined}
            />
            {secret && (
              <Tooltip label={`Read from the secret store (collections:${secret}) when the collection runs`} withArrow>
                <Badge variant="light" color="grape" leftSection={<IconLock size={12} />}>
                  secret
                </Badge>
              </Tooltip>
            )}
            <ActionIcon variant="subtle" color="red" aria-label={`Remove variable ${index + 1}`} onClick={() => setRows((r) => r.filter((_, i) => i !== index))}>
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        );
      })}
      {problem && (
        <Text size="xs" c="red" role="alert">
          {problem}
        </Text>
      )}
      <Group>
        <Button variant="light" size="xs" leftSection={<IconPlus size={14} />} onClick={() => setRows((r) => [...r, { name: '', value: '' }])}>
          Add variable
        </Button>
        <Button size="xs" leftSection={<IconDeviceFloppy size={14} />} disabled={problem !== undefined} loading={saving} onClick={save}>
          Save variables
        </Button>
      </Group>
    </Stack>
  );
}
