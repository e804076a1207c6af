import { ActionIcon, Alert, Box, Code, Group, List, Paper, Popover, ScrollArea, SegmentedControl, Text, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconArrowBackUp, IconBinaryTree } from '@tabler/icons-react';
import { useState } from 'react';
import { ErrorBoundary } from '../../components/ErrorBoundary';
import { describesNothing, readablePath, type JsonSchema, type SchemaProblem } from '../../components/jsonSchema';
import { SchemaForm } from '../../components/SchemaForm';
import { SchemaTree } from '../../components/SchemaTree';
import { JsonEditor } from '../../monaco/JsonEditor';
import type { ArgumentsState } from './useArguments';

export interface ArgumentsEditorProps {
  state: ArgumentsState;
  /** The tool's inputSchema as the server sent it (Monaco reads its own dialect declaration). */
  schema: JsonSchema;
  /** Names the JSON document; unique per tool. */
  documentName: string;
  disabled?: boolean;
  onSubmit: () => void;
}

/** True when the schema leaves nothing to fill in (the common `{type: 'object'}` of argument-less tools). */
function takesNoArguments(schema: JsonSchema): boolean {
  const properties = schema.properties;
  const hasProperties = typeof properties === 'object' && properties !== null && Object.keys(properties).length > 0;
  const open = typeof schema.additionalProperties === 'object' || schema.patternProperties;
  return !hasProperties && !open && !schema.oneOf && !schema.anyOf && !schema.allOf && !schema.$ref;
}

/** The arguments card: a generated form or raw JSON (Monaco), with the problems that block a call. */
export function ArgumentsEditor({ state, schema, documentName, disabled, onSubmit }: ArgumentsEditorProps) {
  const noArguments = takesNoArguments(state.formSchema);
  const undescribed = describesNothing(state.formSchema);
  // Problems are counted once the arguments were edited: an untouched form is not "1 problem"
  // (what blocks the call is said beside the Invoke button).
  const [initial] = useState(() => JSON.stringify(state.args));
  const edited = JSON.stringify(state.args) !== initial;
  return (
    <Paper withBorder radius="md">
      <Group justify="space-between" px="md" py={8} style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
        <Group gap="xs">
          <Text fw={600} size="sm">
            Arguments
          </Text>
          {(state.syntaxError || (edited && state.problems.length > 0 && !noArguments)) && (
            <Text size="xs" c={state.syntaxError ? 'red' : 'dimmed'}>
              {state.syntaxError ? 'syntax error' : state.problems.length === 1 ? '1 problem' : `${state.problems.length} problems`}
            </Text>
          )}
        </Group>
        <Group gap={6}>
          <Popover width={420} position="bottom-end" shadow="md" withArrow>
            <Popover.Target>
              <Tooltip label="Input schema">
                <ActionIcon variant="subtle" color="gray" aria-label="Show input schema">
                  <IconBinaryTree size={16} aria-hidden />
                </ActionIcon>
              </Tooltip>
            </Popover.Target>
            <Popover.Dropdown>
              <ScrollArea.Autosize mah={420}>
                <SchemaTree schema={schema} label="Input schema" />
              </ScrollArea.Autosize>
            </Popover.Dropdown>
          </Popover>
          <Tooltip label="Reset to defaults">
            <ActionIcon variant="subtle" color="gray" aria-label="Reset arguments" onClick={state.reset} disabled={disabled}>
              <IconArrowBackUp size={16} aria-hidden />
            </ActionIcon>
          </Tooltip>
          <SegmentedControl
            size="xs"
            aria-label="Arguments editor"
            value={state.mode}
            onChange={(mode) => state.setMode(mode as 'form' | 'json')}
            data={[
              { label: 'Form', value: 'form', disabled: state.syntaxError !== null || undescribed },
              { label: 'JSON', value: 'json' },
            ]}
          />
        </Group>
      </Group>
      <Box p="md">
        {state.mode === 'form' ? (
          noArguments ? (
            <Text size="sm" c="dimmed">
              This tool takes no arguments.
            </Text>
          ) : (
            <ErrorBoundary
              fallback={(error) => (
                <Alert color="orange" icon={<IconAlertTriangle size={18} />} title="The form cannot show this schema">
                  <Text size="sm">{error.message}</Text>
                  <Text size="sm" mt={4}>
                    Switch to JSON to enter the arguments.
                  </Text>
                </Alert>
              )}
            >
              <SchemaForm schema={state.formSchema} value={state.args} onChange={state.setArgs} idPrefix="arguments" disabled={disabled} />
            </ErrorBoundary>
          )
        ) : (
          <>
            {undescribed && (
              <Text size="sm" c="dimmed" mb="xs">
                This tool’s input schema is empty: it does not say what arguments it takes, so any JSON object is sent as it is.
              </Text>
            )}
            <JsonEditor
              value={state.text}
              onChange={state.setText}
              label="Arguments JSON"
              modelPath={`inmemory://tooldeck/arguments/${documentName.replace(/[^\w.-]+/g, '_')}.json`}
              schema={state.formSchema}
              onSubmit={onSubmit}
              invalid={!state.valid}
            />
            <JsonProblems syntaxError={state.syntaxError} problems={edited ? state.problems : []} />
          </>
        )}
      </Box>
    </Paper>
  );
}

function JsonProblems({ syntaxError, problems }: { syntaxError: string | null; problems: SchemaProblem[] }) {
  if (!syntaxError && problems.length === 0) return null;
  return (
    <Alert mt="sm" color="red" variant="light" p="xs" icon={<IconAlertTriangle size={16} />} title={syntaxError ? 'Syntax error' : problems.length === 1 ? '1 problem' : `${problems.length} problems`}>
      {syntaxError ? (
        <Text size="sm">{syntaxError}</Text>
      ) : (
        <List size="sm" spacing={2} aria-label="Argument problems">
          {problems.map((problem) => (
            <List.Item key={`${problem.path}:${problem.message}`}>
              <Code>{readablePath(problem.path)}</Code> {problem.message}
            </List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}
