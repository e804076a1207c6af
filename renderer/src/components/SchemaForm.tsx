import Form from '@rjsf/mantine';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { useMemo } from 'react';
import { formSchema } from './formSchema';
import { formValidator } from './formValidator';
import type { JsonSchema } from './jsonSchema';
import { schemaFormTemplates } from './schemaFormTemplates';

export interface SchemaFormProps {
  /** Already without its `$schema` dialect (see `withoutDialect`). */
  schema: JsonSchema;
  value: Record<string, unknown>;
  onChange: (value: Record<string, unknown>) => void;
  /** Distinguishes field ids when two forms are on screen (a panel and a dialog). */
  idPrefix: string;
  disabled?: boolean;
}

const uiSchema: UiSchema = { 'ui:submitButtonOptions': { norender: true } };

/** A form generated from a JSON Schema (Mantine theme), validated live on the 2020-12 dialect. */
export function SchemaForm({ schema, value, onChange, idPrefix, disabled }: SchemaFormProps) {
  const shown = useMemo(() => formSchema(schema), [schema]);
  return (
    <Form
      schema={shown as RJSFSchema}
      uiSchema={uiSchema}
      templates={schemaFormTemplates}
      validator={formValidator}
      formData={value}
      onChange={(event) => onChange((event.formData ?? {}) as Record<string, unknown>)}
      onSubmit={() => {}}
      liveValidate="onChange"
      showErrorList={false}
      idPrefix={idPrefix}
      disabled={disabled}
      noHtml5Validate
    />
  );
}
