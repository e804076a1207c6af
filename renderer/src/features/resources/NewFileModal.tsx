import { Button, Group, Modal, Radio, ScrollArea, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { RESOURCE_TEMPLATES, type ResourceTemplate } from '../../../../shared/resources/templates';

export interface NewFileModalProps {
  /** The kind chosen when it opens (a deep link such as `resources?new=EvalSuite`); default McpServer. */
  initialKind?: ResourceTemplate['kind'];
  /** Why a workspace path cannot be used (not YAML, outside the folder, taken), or undefined. */
  checkPath: (path: string) => string | undefined;
  /** A message when creating failed (a collection of that name exists). */
  error?: string;
  busy?: boolean;
  onCreate: (template: ResourceTemplate, path: string) => void;
  onClose: () => void;
}

/**
 * Resources → New file: a starting file per kind (an Orloj McpServer, Tool or ToolPermission, a
 * Language Operator LanguageTool or LanguageAgent, a Clawdapus pod file, an eval suite, a
 * collection), and the name to give it, offered as the workspace needs it for that kind.
 */
export function NewFileModal({ initialKind = 'McpServer', checkPath, error, busy, onCreate, onClose }: NewFileModalProps) {
  const [kind, setKind] = useState<ResourceTemplate['kind']>(initialKind);
  const template = RESOURCE_TEMPLATES.find((item) => item.kind === kind)!;
  const [path, setPath] = useState(template.path);
  /** A name the user typed stays when they pick another kind; the offered one follows the kind. */
  const [typed, setTyped] = useState(false);
  const [touched, setTouched] = useState(false);
  const collection = kind === 'Collection';
  const value = path.trim();
  const problem = template.checkPath(value) ?? (collection ? undefined : checkPath(value));
  const submit = () => {
    setTouched(true);
    if (!problem) onCreate(template, value);
  };
  return (
    <Modal opened onClose={onClose} title="New file" size="lg" centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Stack gap="md">
          <Radio.Group
            label="Kind"
            value={kind}
            onChange={(next) => {
              const chosen = RESOURCE_TEMPLATES.find((item) => item.kind === next)!;
              setKind(chosen.kind);
              if (!typed) setPath(chosen.path);
            }}
          >
            <ScrollArea.Autosize mah="45vh" type="auto" mt={6}>
              <Stack gap={6}>
                {RESOURCE_TEMPLATES.map((item) => (
                  <Radio
                    key={item.kind}
                    value={item.kind}
                    label={item.label}
                    description={item.description}
                  />
                ))}
              </Stack>
            </ScrollArea.Autosize>
          </Radio.Group>
          <TextInput
            label={collection ? 'Collection name' : 'File name'}
            description={collection ? 'Saved in the collections folder; it opens in Collections.' : 'Relative to the workspace folder; subfolders are created on save.'}
            value={path}
            onChange={(event) => {
              setPath(event.currentTarget.value);
              setTyped(true);
            }}
            error={(touched && problem) || error}
            data-autofocus
            spellCheck={false}
          />
          <Text size="xs" c="dimmed">
            The file starts from a commented example of its kind; the editor checks and completes it as you type.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
