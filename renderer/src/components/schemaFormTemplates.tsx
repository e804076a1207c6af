import { Box, Group, Stack, Text } from '@mantine/core';
import {
  buttonId,
  canExpand,
  descriptionId,
  getTemplate,
  getUiOptions,
  titleId,
  type ArrayFieldTitleProps,
  type DescriptionFieldProps,
  type ObjectFieldTemplateProps,
  type TemplatesType,
  type TitleFieldProps,
} from '@rjsf/utils';

/** Section titles at label weight: the theme's h3 makes a nested object shout over its fields. */
function TitleField({ id, title, required, optionalDataControl }: TitleFieldProps) {
  return (
    <Group id={id} justify="space-between" gap="xs" mb={4} wrap="nowrap">
      <Text fw={600} size="sm">
        {title}
        {required && (
          <Text span c="red" ml={4} aria-hidden>
            *
          </Text>
        )}
      </Text>
      {optionalDataControl}
    </Group>
  );
}

function ArrayFieldTitle({ fieldPathId, title, required, schema, uiSchema, registry, optionalDataControl }: ArrayFieldTitleProps) {
  if (!title || getUiOptions(uiSchema, registry.globalUiOptions).label === false) return null;
  return <TitleField id={titleId(fieldPathId)} title={title} required={required} schema={schema} registry={registry} optionalDataControl={optionalDataControl} />;
}

function DescriptionField({ id, description }: DescriptionFieldProps) {
  if (!description) return null;
  return (
    <Text id={id} size="xs" c="dimmed" mb={8}>
      {description}
    </Text>
  );
}

/** Fields in one column; a nested object sits in a bordered group so its fields read as its own. */
function ObjectFieldTemplate(props: ObjectFieldTemplateProps) {
  const { title, description, disabled, readonly, properties, optionalDataControl, onAddProperty, required, schema, uiSchema, fieldPathId, formData, registry } = props;
  const uiOptions = getUiOptions(uiSchema);
  const Title = getTemplate('TitleFieldTemplate', registry, uiOptions);
  const Description = getTemplate('DescriptionFieldTemplate', registry, uiOptions);
  const { AddButton } = registry.templates.ButtonTemplates;
  const nested = fieldPathId.path.length > 0;
  const editable = !readonly && !disabled;
  const body = (
    <>
      {title && <Title id={titleId(fieldPathId)} title={title} required={required} schema={schema} uiSchema={uiSchema} registry={registry} optionalDataControl={editable ? optionalDataControl : undefined} />}
      {description && <Description id={descriptionId(fieldPathId)} description={description} schema={schema} uiSchema={uiSchema} registry={registry} />}
      <Stack gap="sm">
        {!editable && optionalDataControl}
        {properties.filter((p) => !p.hidden).map((p) => (
          <Box key={p.name}>{p.content}</Box>
        ))}
      </Stack>
      {canExpand(schema, uiSchema, formData) && (
        <Group mt="xs" justify="flex-end">
          <AddButton id={buttonId(fieldPathId, 'add')} disabled={disabled || readonly} onClick={onAddProperty} className="rjsf-object-property-expand" uiSchema={uiSchema} registry={registry} />
        </Group>
      )}
    </>
  );
  return nested ? (
    <Box id={fieldPathId.$id} p="sm" style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 'var(--mantine-radius-md)' }}>
      {body}
    </Box>
  ) : (
    <Box id={fieldPathId.$id}>{body}</Box>
  );
}

export const schemaFormTemplates: Partial<TemplatesType> = {
  TitleFieldTemplate: TitleField,
  ArrayFieldTitleTemplate: ArrayFieldTitle,
  DescriptionFieldTemplate: DescriptionField,
  ObjectFieldTemplate,
};
