import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { InvokeRequest } from '../../../../shared/registry';
import { InvokePanel } from './InvokePanel';
import { FakeBackend, renderWithBackend } from './testing/FakeBackend';
import { outcomeOf, toolView } from './testing/fixtures';

const richSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      type: 'object',
      title: 'Address',
      properties: { city: { type: 'string', title: 'City', default: 'Oslo' }, zip: { type: 'string', title: 'Zip' } },
      required: ['city'],
    },
  },
  properties: {
    name: { type: 'string', title: 'Name', description: 'Who to greet' },
    count: { type: 'integer', title: 'Count', default: 3, minimum: 1 },
    color: { title: 'Color', enum: ['red', 'green', 'blue'], default: 'green' },
    note: { type: ['string', 'null'], title: 'Note' },
    home: { $ref: '#/$defs/address' },
    tags: { type: 'array', title: 'Tags', items: { type: 'string' } },
    target: {
      title: 'Target',
      oneOf: [
        { title: 'By id', type: 'object', properties: { id: { type: 'integer', title: 'Id' } }, required: ['id'] },
        { title: 'By label', type: 'object', properties: { label: { type: 'string', title: 'Label' } }, required: ['label'] },
      ],
    },
  },
  required: ['name'],
};

const invokePath = 'tools.invokeStream';

function invokeButton() {
  return screen.getByRole('button', { name: 'Invoke' });
}

function sentRequest(backend: FakeBackend, index = 0): InvokeRequest {
  return backend.subscriptionsTo(invokePath)[index]!.input as InvokeRequest;
}

describe('InvokePanel arguments', () => {
  it('generates fields for $ref/$defs, oneOf, arrays, enums and nullable types, with defaults filled in', () => {
    renderWithBackend(<InvokePanel tool={toolView({ inputSchema: richSchema })} />, new FakeBackend());
    expect(screen.getByRole('textbox', { name: /^Name/ })).toHaveValue('');
    expect(screen.getByRole('textbox', { name: /^Count/ })).toHaveValue('3');
    expect(screen.getByRole('textbox', { name: /^Note/ })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /^City/ })).toHaveValue('Oslo');
    expect(screen.getByRole('textbox', { name: /^Zip/ })).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: /^Color/ })).toHaveValue('green');
    expect(screen.getByText('Tags')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /add/i })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /^Id/ })).toBeInTheDocument();
  });

  it('keeps Invoke disabled while the arguments are invalid and shows the error at the field', async () => {
    const user = userEvent.setup();
    renderWithBackend(<InvokePanel tool={toolView({ inputSchema: richSchema })} />, new FakeBackend());
    expect(invokeButton()).toBeDisabled();
    expect(screen.getByText(/Fix to invoke: name is required/)).toBeInTheDocument();

    await user.type(screen.getByRole('textbox', { name: /^Name/ }), 'Ada');
    await user.type(screen.getByRole('textbox', { name: /^Id/ }), '7');
    await waitFor(() => expect(invokeButton()).toBeEnabled());

    const count = screen.getByRole('textbox', { name: /^Count/ });
    await user.clear(count);
    await user.type(count, '0');
    await waitFor(() => expect(invokeButton()).toBeDisabled());
    expect(count).toHaveAttribute('aria-invalid', 'true');
    expect(count).toHaveAccessibleDescription(/must be >= 1/);
  });

  it('round-trips the arguments through JSON mode and sends what was edited there', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<InvokePanel tool={toolView({ inputSchema: richSchema })} />, backend);
    await user.type(screen.getByRole('textbox', { name: /^Name/ }), 'Ada');
    await user.type(screen.getByRole('textbox', { name: /^Id/ }), '7');

    await user.click(screen.getByRole('radio', { name: 'JSON' }));
    const editor = screen.getByRole('textbox', { name: 'Arguments JSON' });
    const json = JSON.parse((editor as HTMLTextAreaElement).value) as Record<string, unknown>;
    expect(json).toMatchObject({ name: 'Ada', count: 3, color: 'green', home: { city: 'Oslo' }, target: { id: 7 } });

    fireEvent.change(editor, { target: { value: JSON.stringify({ ...json, name: 'Grace', count: 5 }, null, 2) } });
    await user.click(screen.getByRole('radio', { name: 'Form' }));
    expect(screen.getByRole('textbox', { name: /^Name/ })).toHaveValue('Grace');
    expect(screen.getByRole('textbox', { name: /^Count/ })).toHaveValue('5');

    await user.click(invokeButton());
    expect(sentRequest(backend).arguments).toMatchObject({ name: 'Grace', count: 5, home: { city: 'Oslo' } });
  });

  it('lists schema problems in JSON mode, refuses invalid JSON and will not go back to the form until it parses', async () => {
    const user = userEvent.setup();
    renderWithBackend(<InvokePanel tool={toolView({ inputSchema: richSchema })} />, new FakeBackend());
    await user.click(screen.getByRole('radio', { name: 'JSON' }));
    const editor = screen.getByRole('textbox', { name: 'Arguments JSON' });

    fireEvent.change(editor, { target: { value: '{"name": 5, "count": 0}' } });
    const problems = screen.getByRole('list', { name: 'Argument problems' });
    expect(within(problems).getByText('name')).toBeInTheDocument();
    expect(within(problems).getByText('count')).toBeInTheDocument();
    expect(invokeButton()).toBeDisabled();

    fireEvent.change(editor, { target: { value: '{"name": ' } });
    expect(screen.getByText(/Not valid JSON/)).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: 'Form' })).toBeDisabled();
  });
});

describe('InvokePanel calls', () => {
  const simple = toolView({ inputSchema: { type: 'object', properties: { text: { type: 'string', title: 'Text', default: 'hi' } } } });

  it('sends no timeouts unless the user sets them, shows determinate progress with its message, and cancels by unsubscribing', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<InvokePanel tool={simple} />, backend);
    await user.click(invokeButton());

    // The tool's effective runtime applies on the backend: nothing to override.
    expect(sentRequest(backend)).toEqual({ name: simple.name, arguments: { text: 'hi' } });
    const call = backend.subscriptionsTo(invokePath)[0]!;
    call.emit({ type: 'started', at: Date.now() });
    call.emit({ type: 'progress', at: Date.now(), progress: 3, total: 10, message: 'Copying files' });

    const result = screen.getByRole('region', { name: 'Result' });
    expect(within(result).getByRole('progressbar', { name: 'Progress' })).toHaveAttribute('aria-valuenow', '30');
    expect(within(result).getByText('Copying files')).toBeInTheDocument();
    expect(invokeButton()).toBeDisabled();

    await user.click(within(result).getByRole('button', { name: 'Cancel' }));
    expect(call.closed).toBe(true);
    expect(within(result).getByText(/Canceled after/)).toBeInTheDocument();
    expect(invokeButton()).toBeEnabled();
  });

  it('shows an indeterminate bar until a total is known, then the outcome', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<InvokePanel tool={simple} />, backend);
    await user.click(invokeButton());
    const call = backend.subscriptionsTo(invokePath)[0]!;
    call.emit({ type: 'progress', at: Date.now(), progress: 4 });
    expect(screen.getByRole('progressbar', { name: 'Progress' })).not.toHaveAttribute('aria-valuenow');

    call.emit({ type: 'outcome', outcome: outcomeOf({ content: [{ type: 'text', text: 'done and dusted' }] }) });
    call.complete();
    const result = screen.getByRole('region', { name: 'Result' });
    expect(within(result).getByText('Success')).toBeInTheDocument();
    expect(within(result).getByText('done and dusted')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
  });

  it('reports a failed call with its code', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<InvokePanel tool={simple} />, backend);
    await user.click(invokeButton());
    backend.subscriptionsTo(invokePath)[0]!.emit({ type: 'failed', error: { code: 'ConnectionFailed', message: 'demo is not connected', retryable: true } });
    const result = screen.getByRole('region', { name: 'Result' });
    expect(within(result).getByText('ConnectionFailed')).toBeInTheDocument();
    expect(within(result).getByText('demo is not connected')).toBeInTheDocument();
  });

  it('invokes on Ctrl+Enter', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<InvokePanel tool={simple} />, backend);
    await user.click(screen.getByRole('textbox', { name: /^Text/ }));
    await user.keyboard('{Control>}{Enter}{/Control}');
    expect(backend.subscriptionsTo(invokePath)).toHaveLength(1);
  });

  it('sends only the timeouts the user changed', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<InvokePanel tool={simple} />, backend);
    await user.click(screen.getByRole('button', { name: /Timeouts/ }));
    const request = await screen.findByRole('textbox', { name: /Request timeout/ });
    await user.clear(request);
    await user.type(request, '5');
    await user.click(screen.getByRole('switch', { name: /Reset on progress/ }));
    await user.keyboard('{Escape}');
    await user.click(invokeButton());
    expect(sentRequest(backend)).toEqual({ name: simple.name, arguments: { text: 'hi' }, timeoutMs: 5000, resetTimeoutOnProgress: false });
  });
});

describe('InvokePanel policy', () => {
  it('asks before a destructive tool runs', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<InvokePanel tool={toolView({ annotations: { destructiveHint: true } })} />, backend);
    await user.click(invokeButton());
    const dialog = await screen.findByRole('dialog', { name: /Invoke make_thing/ });
    expect(within(dialog).getByText('Destructive tool')).toBeInTheDocument();
    expect(backend.subscriptionsTo(invokePath)).toHaveLength(0);

    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(backend.subscriptionsTo(invokePath)).toHaveLength(0);
  });

  it('does not ask for a read-only tool even when it is also marked destructive', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<InvokePanel tool={toolView({ annotations: { destructiveHint: true, readOnlyHint: true } })} />, backend);
    await user.click(invokeButton());
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(sentRequest(backend).confirmed).toBeUndefined();
  });

  it('sends confirmed: true after the operator confirms a confirm verdict', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    const tool = toolView({ policy: { riskLevel: 'low', operationClasses: ['write'] } }, [
      { name: 'writes-need-approval', toolRef: 'mcp:demo.*', operationRules: [{ operationClass: 'write', verdict: 'confirm' }], file: 'permissions.yaml' },
    ]);
    renderWithBackend(<InvokePanel tool={tool} />, backend);
    await user.click(invokeButton());
    const dialog = await screen.findByRole('dialog', { name: /Invoke make_thing/ });
    expect(within(dialog).getByText(/writes-need-approval/)).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'permissions.yaml' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Confirm and invoke' }));
    expect(sentRequest(backend).confirmed).toBe(true);
  });

  it('disables Invoke for a deny verdict and says why', () => {
    const tool = toolView({ policy: { riskLevel: 'low', operationClasses: ['delete'] } }, [{ name: 'no-deletes', toolRef: '*', operationRules: [{ operationClass: 'delete', verdict: 'deny' }] }]);
    renderWithBackend(<InvokePanel tool={tool} />, new FakeBackend());
    expect(invokeButton()).toBeDisabled();
    expect(invokeButton()).toHaveAccessibleDescription(/no-deletes: delete → deny/);
  });
});

describe('InvokePanel tasks', () => {
  const schema = { type: 'object', properties: { topic: { type: 'string', default: 'tides' } } };

  it('runs a tool that may run as a task as one when asked, detached if wanted, and shows the live timeline', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<InvokePanel tool={toolView({ inputSchema: schema, taskSupport: 'optional' })} />, backend);
    await user.click(screen.getByRole('switch', { name: 'Run as task' }));
    await user.click(invokeButton());
    expect(sentRequest(backend).task).toEqual({ mode: 'wait' });
    const stream = backend.subscriptionsTo(invokePath)[0]!;
    stream.emit({ type: 'task', taskId: 'task-1', at: Date.now(), status: 'working', statusMessage: 'Gathering sources...', via: 'created' });
    stream.emit({ type: 'task', taskId: 'task-1', at: Date.now() + 1000, status: 'input_required', statusMessage: 'Requesting clarification...', via: 'poll' });
    const timeline = await screen.findByLabelText('Timeline of task task-1');
    expect(timeline).toHaveTextContent('Gathering sources...');
    expect(timeline).toHaveTextContent('Requesting clarification...');
    expect(screen.getByText('task-1')).toBeInTheDocument();
  });

  it('always runs a task-required tool as a task, and can start it without waiting', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<InvokePanel tool={toolView({ inputSchema: schema, taskSupport: 'required' })} />, backend);
    expect(screen.getByText('Runs as a task')).toBeInTheDocument();
    expect(screen.queryByRole('switch', { name: 'Run as task' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Don’t wait (start only)' }));
    await user.click(invokeButton());
    expect(sentRequest(backend).task).toEqual({ mode: 'detach' });
  });

  it('says a server of the tasks extension decides, and can start its call without waiting', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend().answer('mcp.get', () => ({ name: 'demo', capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } } }));
    renderWithBackend(<InvokePanel tool={toolView({ inputSchema: schema })} />, backend);
    expect(await screen.findByText('Server may run it as a task')).toBeInTheDocument();
    expect(screen.queryByRole('switch', { name: 'Run as task' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Don’t wait (start only)' }));
    await user.click(invokeButton());
    expect(sentRequest(backend).task).toEqual({ mode: 'detach' });
  });

  it('offers no task options for a tool of a server without tasks', async () => {
    const backend = new FakeBackend().answer('mcp.get', () => ({ name: 'demo', capabilities: { tools: {} } }));
    renderWithBackend(<InvokePanel tool={toolView({ inputSchema: schema })} />, backend);
    await waitFor(() => expect(backend.calls.some((c) => c.path === 'mcp.get')).toBe(true));
    expect(screen.queryByText('Server may run it as a task')).not.toBeInTheDocument();
    expect(screen.queryByRole('checkbox', { name: 'Don’t wait (start only)' })).not.toBeInTheDocument();
  });

  it('shows the task a finished call ran as, with its timeline', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<InvokePanel tool={toolView({ inputSchema: schema, taskSupport: 'required' })} />, backend);
    await user.click(invokeButton());
    const t0 = Date.UTC(2026, 10, 25, 12, 0, 0);
    backend.subscriptionsTo(invokePath)[0]!.emit({
      type: 'outcome',
      outcome: outcomeOf(
        { content: [{ type: 'text', text: '# Research Report' }] },
        {
          task: {
            taskId: 'task-9',
            status: 'completed',
            awaited: true,
            events: [
              { at: t0, status: 'working', statusMessage: 'Gathering sources...', via: 'created' },
              { at: t0 + 4_000, status: 'completed', via: 'result' },
            ],
          },
        },
        { taskId: 'task-9', taskStatus: 'completed' },
      ),
    });
    const section = await screen.findByRole('region', { name: 'Task' });
    expect(section).toHaveTextContent('Ran as task');
    expect(section).toHaveTextContent('task-9');
    expect(within(section).getByLabelText('Timeline of task task-9')).toHaveTextContent('(+4.0 s)');
  });
});
