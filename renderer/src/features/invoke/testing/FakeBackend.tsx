import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render } from '@testing-library/react';
import { createTRPCClient, TRPCClientError, type TRPCLink } from '@trpc/client';
import { observable, type Observer } from '@trpc/server/observable';
import type { ReactNode } from 'react';
import type { AppRouter } from '../../../../../main/rpc/router';
import type { AppErrorShape } from '../../../../../shared/errors';
import { TRPCProvider } from '../../../rpc/client';
import { JsonEditorImplementation } from '../../../monaco/JsonEditor';
import { PlainJsonEditor } from '../../../monaco/PlainJsonEditor';
import { NavigationProvider } from '../../../shell/useSection';

type Handler = (input: unknown) => unknown;

interface Call {
  type: 'query' | 'mutation' | 'subscription';
  path: string;
  input: unknown;
}

function errorFor(error: AppErrorShape) {
  return TRPCClientError.from({ error: { message: error.message, code: -32603, data: { app: error } } } as never);
}

/** One open subscription the test drives: it pushes events and sees whether the client let go. */
export class FakeSubscription {
  closed = false;

  constructor(
    readonly path: string,
    readonly input: unknown,
    private readonly observer: Observer<unknown, unknown>,
  ) {}

  emit(data: unknown) {
    act(() => this.observer.next({ result: { type: 'data', data } }));
  }

  complete() {
    act(() => this.observer.complete());
  }

  fail(error: AppErrorShape) {
    act(() => this.observer.error(errorFor(error)));
  }

  /** The event stream is open, as httpSubscriptionLink reports it. */
  connected() {
    act(() => this.observer.next({ result: { type: 'state', state: 'pending', error: null } }));
  }

  /** What httpSubscriptionLink reports on a retryable error before it reconnects and runs the procedure again. */
  reconnecting(error: AppErrorShape) {
    act(() => this.observer.next({ result: { type: 'state', state: 'connecting', error: errorFor(error) } }));
  }
}

/**
 * The tRPC backend as the renderer sees it through its link: scripted answers per procedure path,
 * every call recorded, subscriptions left open for the test to drive.
 */
export class FakeBackend {
  readonly calls: Call[] = [];
  readonly subscriptions: FakeSubscription[] = [];
  private readonly handlers = new Map<string, Handler>();
  private readonly subscribers = new Map<string, (subscription: FakeSubscription) => void>();

  /** Answers a query or mutation; a thrown `{ code, message, retryable }` becomes a tRPC error. */
  answer(path: string, handler: Handler): this {
    this.handlers.set(path, handler);
    return this;
  }

  /** Runs when the client subscribes to `path`, e.g. to push a first snapshot. */
  onSubscribe(path: string, start: (subscription: FakeSubscription) => void): this {
    this.subscribers.set(path, start);
    return this;
  }

  subscriptionsTo(path: string): FakeSubscription[] {
    return this.subscriptions.filter((s) => s.path === path);
  }

  callsTo(path: string): unknown[] {
    return this.calls.filter((c) => c.path === path).map((c) => c.input);
  }

  link(): TRPCLink<AppRouter> {
    return () =>
      ({ op }) =>
        observable((observer) => {
          this.calls.push({ type: op.type, path: op.path, input: op.input });
          if (op.type === 'subscription') {
            const subscription = new FakeSubscription(op.path, op.input, observer as Observer<unknown, unknown>);
            this.subscriptions.push(subscription);
            const start = this.subscribers.get(op.path);
            if (start) queueMicrotask(() => start(subscription));
            // Like httpSubscriptionLink, letting go completes the observer at once.
            return () => {
              subscription.closed = true;
              observer.complete();
            };
          }
          const handler = this.handlers.get(op.path);
          Promise.resolve()
            .then(() => {
              if (!handler) throw { code: 'NotFound', message: `No fake answer for ${op.path}`, retryable: false } satisfies AppErrorShape;
              return handler(op.input);
            })
            .then(
              (data) => {
                observer.next({ result: { type: 'data', data } });
                observer.complete();
              },
              (error: AppErrorShape) => observer.error(errorFor(error)),
            );
          return () => {};
        });
  }
}

/** Renders `ui` as the app would (Mantine, react-query, tRPC) on `backend`, with the plain JSON editor. */
export function renderWithBackend(ui: ReactNode, backend: FakeBackend) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const trpcClient = createTRPCClient<AppRouter>({ links: [backend.link()] });
  return render(
    <MantineProvider env="test">
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          <NavigationProvider>
            <JsonEditorImplementation.Provider value={PlainJsonEditor}>{ui}</JsonEditorImplementation.Provider>
          </NavigationProvider>
        </TRPCProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
}
