import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import type { A2aEvent, A2aTaskView } from '../../../../shared/a2a';
import { ConversationPanel } from './ConversationPanel';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { toolView } from '../invoke/testing/fixtures';
import { useConversation } from './useConversation';

function Harness({ streaming = true }: { streaming?: boolean }) {
  const controller = useConversation('demo');
  const [draft, setDraft] = useState('');
  const [stream, setStream] = useState(streaming);
  return (
    <ConversationPanel
      agent="demo"
      controller={controller}
      draft={draft}
      onDraftChange={setDraft}
      stream={stream}
      onStreamChange={setStream}
      streamingSupported={streaming}
    />
  );
}

const T0 = 1_750_000_000_000;
const event = (e: Partial<A2aEvent> & Pick<A2aEvent, 'kind'>, offset = 0): A2aEvent => ({ taskId: 'task-1', contextId: 'ctx-1', at: T0 + offset, ...e });

function setup(streaming = true, prepare: (backend: FakeBackend) => void = () => undefined) {
  const backend = new FakeBackend().answer('a2a.threads', () => []);
  prepare(backend);
  const user = userEvent.setup();
  renderWithBackend(<Harness streaming={streaming} />, backend);
  const send = async (text: string) => {
    await user.type(screen.getByRole('textbox', { name: 'Message' }), text);
    await user.click(screen.getByRole('button', { name: 'Send' }));
  };
  return { backend, user, send };
}

function timelineItems() {
  return within(screen.getByRole('list', { name: 'Task timeline' })).getAllByRole('listitem');
}

describe('ConversationPanel', () => {
  it('shows each streamed state in order with its status text, live', async () => {
    const { backend, send } = setup();
    await send('/report numbers');
    const stream = backend.subscriptionsTo('a2a.stream')[0]!;
    expect(stream.input).toEqual({ agent: 'demo', message: '/report numbers' });

    stream.emit(event({ kind: 'task', state: 'SUBMITTED' }));
    stream.emit(event({ kind: 'status', state: 'WORKING', text: 'step 1/2: collecting' }, 40));
    expect(screen.getByRole('button', { name: 'Cancel task' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
    stream.emit(event({ kind: 'status', state: 'WORKING', text: 'step 2/2: writing' }, 80));
    stream.emit(event({ kind: 'status', state: 'COMPLETED', text: 'Report ready.', final: true }, 120));

    const items = timelineItems();
    expect(items.map((item) => item.textContent)).toEqual([
      expect.stringContaining('SUBMITTED'),
      expect.stringMatching(/WORKING.*step 1\/2: collecting/),
      expect.stringMatching(/WORKING.*step 2\/2: writing/),
      expect.stringMatching(/COMPLETED.*Report ready\./),
    ]);
    // The last word of the finished task is also the agent's reply in the chat.
    expect(within(screen.getByRole('log', { name: 'Conversation' })).getByText('Report ready.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Cancel task' })).not.toBeInTheDocument();
  });

  it('continues the waiting task when the agent asks for input, and says so', async () => {
    const { backend, send } = setup();
    await send('/ask');
    const first = backend.subscriptionsTo('a2a.stream')[0]!;
    first.emit(event({ kind: 'task', state: 'SUBMITTED' }));
    first.emit(event({ kind: 'status', state: 'INPUT_REQUIRED', text: 'What is your name?', final: true }, 10));

    expect(screen.getByRole('status')).toHaveTextContent(/waiting for your answer: “What is your name\?”.*continues task task-1/);
    const question = within(screen.getByRole('log', { name: 'Conversation' }))
      .getByText('What is your name?')
      .closest('[role="article"]') as HTMLElement;
    await send('Ada');
    const second = backend.subscriptionsTo('a2a.stream')[1]!;
    expect(second.input).toEqual({ agent: 'demo', message: 'Ada', contextId: 'ctx-1', taskId: 'task-1' });

    second.emit(event({ kind: 'task', state: 'WORKING' }, 20));
    second.emit(event({ kind: 'artifact', artifact: { artifactId: 'greeting', name: 'greeting.txt', parts: [{ kind: 'text', text: 'Hello, Ada!' }] } }, 30));
    second.emit(event({ kind: 'status', state: 'COMPLETED', text: 'Greeted Ada.', final: true }, 40));

    expect(timelineItems().map((item) => item.textContent)).toEqual([
      expect.stringContaining('SUBMITTED'),
      expect.stringMatching(/INPUT_REQUIRED.*What is your name\?/),
      expect.stringContaining('WORKING'),
      expect.stringMatching(/COMPLETED.*Greeted Ada\./),
    ]);
    expect(within(screen.getByRole('region', { name: 'Artifacts' })).getByText('Hello, Ada!')).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    // The question keeps the state it was asked in, though the task has moved on.
    expect(question).toHaveTextContent('INPUT_REQUIRED');
    expect(question).not.toHaveTextContent('COMPLETED');

    // With the task finished, the next message starts a new task in the same conversation.
    await send('/echo again');
    expect(backend.subscriptionsTo('a2a.stream')[2]!.input).toEqual({ agent: 'demo', message: '/echo again', contextId: 'ctx-1' });
  });

  it('cancels a running task: drops the stream and asks the agent to cancel', async () => {
    const { backend, user, send } = setup();
    const canceled: A2aTaskView = { id: 'task-1', contextId: 'ctx-1', state: 'CANCELED', statusText: 'Canceled on request.', artifacts: [], history: [] };
    backend.answer('a2a.cancelTask', () => canceled);
    await send('/slow');
    const stream = backend.subscriptionsTo('a2a.stream')[0]!;
    stream.emit(event({ kind: 'task', state: 'SUBMITTED' }));
    stream.emit(event({ kind: 'status', state: 'WORKING', text: 'Working on it…' }, 10));

    await user.click(screen.getByRole('button', { name: 'Cancel task' }));
    expect(stream.closed).toBe(true);
    await waitFor(() => expect(backend.callsTo('a2a.cancelTask')).toEqual([{ agent: 'demo', taskId: 'task-1' }]));
    await waitFor(() => expect(timelineItems().at(-1)).toHaveTextContent(/CANCELED.*Canceled on request\./));
    expect(screen.getByRole('button', { name: 'Send' })).toBeInTheDocument();
  });

  it('offers to resubscribe when the stream drops early, and recovers the final state', async () => {
    const { backend, user, send } = setup();
    await send('/report');
    const stream = backend.subscriptionsTo('a2a.stream')[0]!;
    stream.emit(event({ kind: 'task', state: 'SUBMITTED' }));
    stream.emit(event({ kind: 'status', state: 'WORKING', text: 'step 1/3: collecting' }, 10));
    stream.fail({ code: 'ExecutionFailed', message: 'demo ended the stream before the task reached a final state.', retryable: false });

    expect(await screen.findByRole('alert')).toHaveTextContent(/ended the stream before the task reached a final state/);
    await user.click(screen.getByRole('button', { name: 'Resubscribe' }));
    const resubscribed = backend.subscriptionsTo('a2a.resubscribe')[0]!;
    expect(resubscribed.input).toEqual({ agent: 'demo', taskId: 'task-1' });
    resubscribed.emit(event({ kind: 'task', state: 'COMPLETED', text: 'Report ready.', final: true }, 500));

    expect(timelineItems().at(-1)).toHaveTextContent(/COMPLETED.*Report ready\./);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('ends the turn instead of letting the HTTP link reconnect and send the message again', async () => {
    const { backend, user, send } = setup();
    await send('/report');
    const stream = backend.subscriptionsTo('a2a.stream')[0]!;
    stream.connected();
    stream.emit(event({ kind: 'task', state: 'SUBMITTED' }));
    stream.emit(event({ kind: 'status', state: 'WORKING', text: 'step 1/3: collecting' }, 10));
    stream.reconnecting({ code: 'ExecutionFailed', message: 'demo ended the stream before the task reached a final state.', retryable: false });

    expect(stream.closed).toBe(true);
    expect(await screen.findByRole('alert')).toHaveTextContent(/ended the stream before the task reached a final state/);
    await user.click(screen.getByRole('button', { name: 'Resubscribe' }));
    expect(backend.subscriptionsTo('a2a.stream')).toHaveLength(1);
    expect(backend.subscriptionsTo('a2a.resubscribe')[0]!.input).toEqual({ agent: 'demo', taskId: 'task-1' });
  });

  it('sends blocking when the card does not stream, and shows the answer', async () => {
    const { backend, send } = setup(false);
    backend.answer('a2a.send', () => ({
      kind: 'task',
      taskId: 'task-9',
      contextId: 'ctx-9',
      state: 'COMPLETED',
      text: 'done',
      artifacts: [],
      task: { id: 'task-9', contextId: 'ctx-9', state: 'COMPLETED', statusText: 'All done.', artifacts: [], history: [] },
    }));
    expect(screen.getByRole('switch', { name: 'Stream' })).not.toBeChecked();
    await send('hello');
    await waitFor(() => expect(timelineItems().map((i) => i.textContent)).toEqual([expect.stringMatching(/COMPLETED.*All done\./)]));
    expect(backend.callsTo('a2a.send')).toEqual([{ agent: 'demo', message: 'hello' }]);
    expect(backend.subscriptionsTo('a2a.stream')).toHaveLength(0);
  });

  it('asks before a turn the agent’s ToolPermission wants approved, and sends it confirmed once the operator agrees', async () => {
    // The agent's streaming turn entry, its verdict from the same rules the pipeline enforces.
    const turnEntry = toolView({ name: 'a2a:demo.SendStreamingMessage', source: { kind: 'a2a', name: 'demo' }, toolName: 'SendStreamingMessage', title: 'Stream a message' }, [
      { name: 'ask-before-talking-to-demo', toolRef: 'a2a:demo.*', operationRules: [{ operationClass: '*', verdict: 'confirm' }], file: 'permissions.yaml' },
    ]);
    const { backend, user, send } = setup(true, (fake) => fake.answer('tools.get', () => turnEntry));
    await waitFor(() => expect(backend.callsTo('tools.get')).toEqual([{ name: 'a2a:demo.SendStreamingMessage' }]));
    await send('hello there');

    const dialog = await screen.findByRole('dialog', { name: /Stream a message/ });
    expect(within(dialog).getByText(/ask-before-talking-to-demo/)).toBeInTheDocument();
    expect(backend.subscriptionsTo('a2a.stream')).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Confirm and invoke' }));
    expect(backend.subscriptionsTo('a2a.stream')[0]!.input).toEqual({ agent: 'demo', message: 'hello there', confirmed: true });
  });
});
