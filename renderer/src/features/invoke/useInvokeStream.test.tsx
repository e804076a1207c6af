import { act, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBackend, renderWithBackend } from './testing/FakeBackend';
import { outcomeOf } from './testing/fixtures';
import { useInvokeStream, type InvokeStreamFold } from './useInvokeStream';

/** Keeps every progress message, so the test sees what the fold kept after the end. */
const messages: InvokeStreamFold<string[]> = {
  initial: () => [],
  step: (kept, update) => (update.type === 'progress' && update.message !== undefined ? [...kept, update.message] : kept),
};

let controls: ReturnType<typeof useInvokeStream<string[]>>;

function Probe() {
  controls = useInvokeStream(messages);
  return <pre data-testid="state">{JSON.stringify(controls.state)}</pre>;
}

const shown = () => JSON.parse(screen.getByTestId('state').textContent ?? 'null');

describe('useInvokeStream', () => {
  it('folds updates while the call runs and ends once, with the outcome', () => {
    const backend = new FakeBackend();
    renderWithBackend(<Probe />, backend);
    act(() => controls.start({ name: 'mcp:everything.echo', arguments: {} }));
    const [stream] = backend.subscriptionsTo('tools.invokeStream');
    stream!.emit({ type: 'started', at: 1 });
    stream!.emit({ type: 'progress', at: 2, progress: 1, message: 'one' });
    expect(shown()).toMatchObject({ phase: 'running', running: ['one'] });
    stream!.emit({ type: 'outcome', outcome: outcomeOf({ content: [{ type: 'text', text: 'hi' }] }) });
    stream!.emit({ type: 'failed', error: { code: 'Internal', message: 'late', retryable: false } });
    expect(shown()).toMatchObject({ phase: 'done', running: ['one'] });
  });

  it('calls a stream that closes without an outcome a failure', () => {
    const backend = new FakeBackend();
    renderWithBackend(<Probe />, backend);
    act(() => controls.start({ name: 'mcp:everything.echo', arguments: {} }));
    const [stream] = backend.subscriptionsTo('tools.invokeStream');
    stream!.complete();
    expect(shown()).toMatchObject({ phase: 'failed', error: { code: 'Internal', message: 'The call ended without a result.' } });
  });

  it('unsubscribes on cancel (keeping what was folded) and when the view goes away', () => {
    const backend = new FakeBackend();
    const view = renderWithBackend(<Probe />, backend);
    act(() => controls.start({ name: 'mcp:everything.echo', arguments: {} }));
    const [first] = backend.subscriptionsTo('tools.invokeStream');
    first!.emit({ type: 'progress', at: 2, progress: 1, message: 'one' });
    act(() => controls.cancel());
    expect(first!.closed).toBe(true);
    expect(shown()).toMatchObject({ phase: 'canceled', running: ['one'] });

    act(() => controls.start({ name: 'mcp:everything.echo', arguments: {} }));
    const second = backend.subscriptionsTo('tools.invokeStream')[1]!;
    expect(shown()).toMatchObject({ phase: 'running', running: [] });
    view.unmount();
    expect(second.closed).toBe(true);
  });
});
