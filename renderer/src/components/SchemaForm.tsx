import Form from '@rjsf/mantine';
import { getTemplate, type RegistryWidgetsType, type RJSFSchema, type UiSchema, type WidgetProps } from '@rjsf/utils';
import { useMemo, useState } from 'react';
import { formSchema } from './formSchema';
import { formValidator } from './formValidator';
import { freeFormUiSchema } from './JsonValueField';
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

/**
 * A text field that keeps an RFC 3339 value exactly as typed. The Mantine theme's pickers write what
 * JSON Schema's `date-time` and `time` formats reject: its DateTimeWidget stores
 * "YYYY-MM-DD HH:mm:ss" in local time (no "T", no offset, so the form blocks the call and a protobuf
 * Timestamp could not be parsed anyway) and its TimeWidget "HH:mm" without an offset. Typed text
 * also keeps fractional seconds and the offset the operator means.
 */
function rfc3339Widget(example: string) {
  return function Rfc3339Widget(props: WidgetProps) {
    const BaseInputTemplate = getTemplate('BaseInputTemplate', props.registry, props.options);
    return <BaseInputTemplate {...props} value={props.value ?? ''} type="text" placeholder={props.placeholder || example} />;
  };
}

const widgets: RegistryWidgetsType = { DateTimeWidget: rfc3339Widget('2026-01-31T12:00:00Z'), TimeWidget: rfc3339Widget('12:00:00Z') };

/** A form generated from a JSON Schema (Mantine theme), validated live on the 2020-12 dialect. */
export function SchemaForm({ schema, value, onChange, idPrefix, disabled }: SchemaFormProps) {
  const shown = useMemo(() => formSchema(schema), [schema]);
  // Free-form fields (any object, list or value: a gRPC Struct, MCP "options" objects) are typed as JSON.
  const ui = useMemo(() => ({ ...freeFormUiSchema(shown), ...uiSchema }), [shown]);
  // The owner keeps the arguments as JSON, so a field rjsf cleared comes back without its key rather
  // than set to undefined. rjsf takes that for new data and re-picks every oneOf/anyOf variant from it,
  // which undid the operator's choice: switching a filled oneof member (email) to another (phone)
  // snapped back to "no contact", the first variant the emptied data fits. While the value is still
  // what rjsf last reported, rjsf gets its own object back; a value set from outside (JSON mode,
  // reset) differs and is taken as is.
  const [reported, setReported] = useState<Record<string, unknown>>();
  const formData = reported !== undefined && JSON.stringify(reported) === JSON.stringify(value) ? reported : value;
  return (
    <Form
      schema={shown as RJSFSchema}
      uiSchema={ui}
      templates={schemaFormTemplates}
      widgets={widgets}
      validator={formValidator}
      formData={formData}
      onChange={(event) => {
        const next = (event.formData ?? {}) as Record<string, unknown>;
        setReported(next);
        onChange(next);
      }}
      onSubmit={() => {}}
      liveValidate="onChange"
      showErrorList={false}
      idPrefix={idPrefix}
      disabled={disabled}
      noHtml5Validate
    />
  );
}
