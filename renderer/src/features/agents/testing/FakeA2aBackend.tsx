import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render } from '@testing-library/react';
import { createTRPCClient, TRPCClientError, type TRPCLink } from '@trpc/client';
import { observable, type Observer } from '@trpc/server/observable';
import type { ReactNode } from 'react';
import type { AppRouter } from '../../../../../main/rpc/router';
import type { AppErrorShape } from '../../../../../shared/errors';
import { TRPCProvider } from '../../../rpc/client';

function errorFor(error: AppErrorShape) {
  return TRPCClientError.from({ error: { message: error.message, code: -32603, data: { app: error } } } as never);
}

/** One open subscription: the test pushes events into it and sees whether the client let go. */
export class FakeStream {
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

  /** The SSE connection is open, as httpSubscriptionLink reports it. */
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
export class FakeA2aBackend {
  readonly calls: Array<{ type: string; path: string; input: unknown }> = [];
  readonly streams: FakeStream[] = [];
  private readonly handlers = new Map<string, (input: unknown) => unknown>();

  /** Answers a query or mutation; a thrown `{ code, message, retryable }` becomes a tRPC error. */
  answer(path: string, handler: (input: unknown) => unknown): this {
    this.handlers.set(path, handler);
    return this;
  }

  streamsTo(path: string): FakeStream[] {
    return this.streams.filter((s) => s.path === path);
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
            const stream = new FakeStream(op.path, op.input, observer as Observer<unknown, unknown>);
            this.streams.push(stream);
            // Like httpSubscriptionLink, letting go completes the observer at once.
            return () => {
              stream.closed = true;
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

/** Renders `ui` as the app would (Mantine, react-query, tRPC) on `backend`. */
export function renderWithBackend(ui: ReactNode, backend: FakeA2aBackend) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const trpcClient = createTRPCClient<AppRouter>({ links: [backend.link()] });
  return render(
    <MantineProvider env="test">
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          {ui}
        </TRPCProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
}
