import { Textarea } from '@mantine/core';
import type { FieldProps, UiSchema } from '@rjsf/utils';
import { useRef, useState } from 'react';
import { describingKeys, readJsonText, type JsonSchema } from './jsonSchema';

const isObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a field's schema leaves its value free-form, so the form has no inputs to offer for it:
 * any value (`{}`, a gRPC google.protobuf.Value), an object with no properties described (a gRPC
 * Struct, MCP tools' "any object" options) or a list with no item schema (a gRPC ListValue).
 */
export function isFreeForm(schema: JsonSchema): boolean {
  const keys = describingKeys(schema);
  if (keys.length === 0) return true;
  if (schema.type === 'object') return keys.every((key) => key === 'type' || (key === 'additionalProperties' && schema.additionalProperties === true));
  if (schema.type === 'array') return keys.every((key) => key === 'type');
  return false;
}

/**
 * The uiSchema that has the form edit each free-form field as JSON (JsonValueField), found through
 * `properties` and single-schema `items` at any depth. Variants of oneOf/anyOf keep the form's own
 * rendering (their uiSchema is not addressed by path).
 */
export function freeFormUiSchema(schema: JsonSchema): UiSchema {
  const ui: UiSchema = {};
  if (isObject(schema.properties)) {
    for (const [name, child] of Object.entries(schema.properties)) {
      if (!isObject(child)) continue;
      const nested = isFreeForm(child) ? { 'ui:field': JsonValueField, 'ui:label': false } : freeFormUiSchema(child);
      if (Object.keys(nested).length) ui[name] = nested;
    }
  }
  if (isObject(schema.items)) {
    const items = isFreeForm(schema.items) ? { 'ui:field': JsonValueField, 'ui:label': false } : freeFormUiSchema(schema.items);
    if (Object.keys(items).length) ui.items = items;
  }
  return ui;
}

const pretty = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));

/**
 * A free-form field as JSON text: what is typed is kept as typed, and the value changes only when
 * it parses to the kind the schema asks for (object, list, or any); otherwise one sentence says
 * why. Emptied, the field has no value.
 */
export function JsonValueField({ schema, name, formData, onChange, fieldPathId, required, disabled, readonly }: FieldProps) {
  const label = typeof schema.title === 'string' && schema.title ? schema.title : name;
  const [text, setText] = useState(() => pretty(formData));
  const [problem, setProblem] = useState<string>();
  // The value this field last reported: a different one came from outside (JSON mode, reset).
  const reported = useRef<unknown>(formData);
  if (JSON.stringify(reported.current) !== JSON.stringify(formData)) {
    reported.current = formData;
    setText(pretty(formData));
    setProblem(undefined);
  }

  const edit = (next: string) => {
    setText(next);
    if (next.trim() === '') {
      setProblem(undefined);
      reported.current = undefined;
      onChange(undefined, fieldPathId.path);
      return;
    }
    const read = readJsonText(next, schema.type === 'object' || schema.type === 'array' ? schema.type : 'any', label);
    if ('problem' in read) {
      setProblem(read.problem);
      return;
    }
    setProblem(undefined);
    reported.current = read.value;
    onChange(read.value as never, fieldPathId.path);
  };

  return (
    <Textarea
      id={fieldPathId.$id}
      label={label}
      description={typeof schema.description === 'string' ? `${schema.description} — as JSON` : 'As JSON'}
      required={required}
      disabled={disabled || readonly}
      value={text}
      onChange={(event) => edit(event.currentTarget.value)}
      error={problem}
      autosize
      minRows={2}
      maxRows={12}
      spellCheck={false}
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 'var(--mantine-font-size-xs)' } }}
      placeholder={schema.type === 'array' ? '[ … ]' : schema.type === 'object' ? '{ … }' : 'any JSON value'}
    />
  );
}
