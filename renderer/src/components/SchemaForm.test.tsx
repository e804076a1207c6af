import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { clean } from '../features/invoke/useArguments';
import { SchemaForm } from './SchemaForm';

/** Owns the value the way useArguments does: as JSON, so keys the form cleared are dropped. */
function Harness({ schema, seen }: { schema: Record<string, unknown>; seen: Array<Record<string, unknown>> }) {
  const [value, setValue] = useState<Record<string, unknown>>({});
  return (
    <SchemaForm
      schema={schema}
      value={value}
      idPrefix="test"
      onChange={(next) => {
        seen.push(clean(next));
        setValue(clean(next));
      }}
    />
  );
}

function renderForm(schema: Record<string, unknown>) {
  const seen: Array<Record<string, unknown>> = [];
  render(
    <MantineProvider env="test">
      <Harness schema={schema} seen={seen} />
    </MantineProvider>,
  );
  return seen;
}

describe('SchemaForm', () => {
  it('keeps date-time and time values as the RFC 3339 text typed (the theme pickers wrote local "YYYY-MM-DD HH:mm:ss" and "HH:mm")', async () => {
    const user = userEvent.setup();
    const seen = renderForm({ type: 'object', properties: { at: { type: 'string', format: 'date-time' }, opens: { type: 'string', format: 'time' } } });
    await user.click(screen.getByRole('textbox', { name: 'at' }));
    await user.paste('2026-01-31T12:00:00.5-03:00');
    await user.click(screen.getByRole('textbox', { name: 'opens' }));
    await user.paste('08:30:00Z');
    expect(seen.at(-1)).toEqual({ at: '2026-01-31T12:00:00.5-03:00', opens: '08:30:00Z' });
  });

  it('keeps the oneOf variant the operator picks when the data it leaves behind fits another variant', async () => {
    // The shape descriptorSchema gives a protobuf oneof: "none of them" first, then one variant per member.
    const schema = {
      type: 'object',
      properties: { note: { type: 'string' } },
      oneOf: [
        { title: 'no contact', not: { anyOf: [{ required: ['email'] }, { required: ['phone'] }] } },
        { title: 'email', properties: { email: { type: 'string' } }, required: ['email'] },
        { title: 'phone', properties: { phone: { type: 'string' } }, required: ['phone'] },
      ],
    };
    const user = userEvent.setup();
    const seen = renderForm(schema);
    const selector = () => screen.getAllByRole('combobox').find((element) => element.id === 'test__oneof_select')! as HTMLInputElement;
    await user.click(selector());
    await user.click(screen.getByRole('option', { name: 'email' }));
    await user.click(screen.getByRole('textbox', { name: 'email' }));
    await user.paste('a@b.c');
    // Switching clears the email; the emptied data fits "no contact" first, which the form used to snap back to.
    await user.click(selector());
    await user.click(screen.getByRole('option', { name: 'phone' }));
    expect(selector()).toHaveValue('phone');
    await user.click(screen.getByRole('textbox', { name: 'phone' }));
    await user.paste('555');
    expect(seen.at(-1)).toEqual({ phone: '555' });
  });
});

describe('SchemaForm free-form fields', () => {
  // What a gRPC Struct, Value and ListValue become (descriptorSchema), and what MCP tools write for "any object".
  const schema = {
    type: 'object',
    properties: {
      filters: { type: 'object', title: 'Filters', description: 'google.protobuf.Struct (any JSON object)' },
      value: { description: 'google.protobuf.Value (any JSON value)' },
      tags: { type: 'array', description: 'google.protobuf.ListValue (any JSON array)' },
      name: { type: 'string' },
    },
  };

  it('edits a field whose schema allows any object, value or list as JSON, in the form', async () => {
    const user = userEvent.setup();
    const seen = renderForm(schema);
    await user.click(screen.getByRole('textbox', { name: 'Filters' }));
    await user.paste('{"region": "eu", "limit": 3}');
    await user.click(screen.getByRole('textbox', { name: 'value' }));
    await user.paste('42');
    await user.click(screen.getByRole('textbox', { name: 'tags' }));
    await user.paste('["a", {"b": 1}]');
    expect(seen.at(-1)).toEqual({ filters: { region: 'eu', limit: 3 }, value: 42, tags: ['a', { b: 1 }] });
  });

  it('keeps what was typed and says why when it is not JSON of the right kind, changing nothing', async () => {
    const user = userEvent.setup();
    const seen = renderForm(schema);
    const filters = screen.getByRole('textbox', { name: 'Filters' });
    await user.click(filters);
    await user.paste('{"region": ');
    expect(filters).toHaveValue('{"region": ');
    expect(screen.getByText(/Not valid JSON/)).toBeInTheDocument();
    expect(seen.every((value) => !('filters' in value))).toBe(true);
    await user.clear(filters);
    await user.paste('[1, 2]');
    expect(screen.getByText('Filters must be a JSON object ({ … }).')).toBeInTheDocument();
    await user.clear(filters);
    expect(screen.queryByText(/must be a JSON object|Not valid JSON/)).not.toBeInTheDocument();
    expect(seen.at(-1)).toEqual({});
  });
});
