import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../components/jsonSchema';
import { ArgumentsEditor } from './ArgumentsEditor';
import { FakeBackend, renderWithBackend } from './testing/FakeBackend';
import { useArguments } from './useArguments';

/** `name` is required and has no default, so the untouched arguments already break the schema. */
const schema: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name' },
    count: { type: 'integer', title: 'Count', default: 3, minimum: 1 },
  },
  required: ['name'],
};

/** The editor as the Invoke panel drives it: the real arguments state, nothing stubbed. */
function Harness({ toolSchema = schema }: { toolSchema?: JsonSchema }) {
  const state = useArguments(toolSchema);
  return (
    <>
      <ArgumentsEditor state={state} schema={toolSchema} documentName="mcp:demo.greet" onSubmit={() => {}} />
      {/* Exposed so the test can show the problem is there, only not announced. */}
      <output aria-label="Problems counted">{state.problems.length}</output>
    </>
  );
}

describe('ArgumentsEditor problem count', () => {
  it('shows no problem count before the user typed anything, in the form or in JSON', async () => {
    const user = userEvent.setup();
    renderWithBackend(<Harness />, new FakeBackend());
    // The missing required field is a problem all along (it blocks Invoke, said beside the button)…
    expect(screen.getByRole('status', { name: 'Problems counted' })).toHaveTextContent('1');
    // …but an untouched form is not "1 problem".
    expect(screen.queryByText(/\d+ problems?$/)).not.toBeInTheDocument();

    await user.click(screen.getByRole('radio', { name: 'JSON' }));
    expect(screen.queryByText(/\d+ problems?$/)).not.toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Argument problems' })).not.toBeInTheDocument();
  });

  it('counts problems once the user has edited the arguments', async () => {
    renderWithBackend(<Harness />, new FakeBackend());
    await userEvent.setup().click(screen.getByRole('radio', { name: 'JSON' }));
    // The same check the count above is absent from: now it shows, so its absence was not blindness.
    fireEvent.change(screen.getByRole('textbox', { name: 'Arguments JSON' }), { target: { value: '{"count": 0}' } });
    expect(screen.getAllByText('2 problems').length).toBeGreaterThan(0);
    expect(screen.getByRole('list', { name: 'Argument problems' })).toBeInTheDocument();
  });
});

describe('ArgumentsEditor with an input schema that describes nothing ({})', () => {
  it('starts in JSON (there is no form to show), says why, and accepts any object', async () => {
    renderWithBackend(<Harness toolSchema={{}} />, new FakeBackend());
    expect(screen.getByText(/input schema is empty/)).toBeInTheDocument();
    expect(screen.queryByText('This tool takes no arguments.')).not.toBeInTheDocument();
    expect(screen.getByRole('radio', { name: 'Form' })).toBeDisabled();
    const json = screen.getByRole('textbox', { name: 'Arguments JSON' });
    expect(json).toHaveValue('{}');
    fireEvent.change(json, { target: { value: '{"query": "tides", "limit": 3}' } });
    expect(screen.getByRole('status', { name: 'Problems counted' })).toHaveTextContent('0');
    expect(screen.queryByRole('list', { name: 'Argument problems' })).not.toBeInTheDocument();
  });

  it('still shows the form for a schema with a type, and no arguments for an empty object', () => {
    renderWithBackend(<Harness toolSchema={{ type: 'object', description: 'Nothing to fill in' }} />, new FakeBackend());
    expect(screen.getByText('This tool takes no arguments.')).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: 'Form' })).not.toBeDisabled();
  });
});
