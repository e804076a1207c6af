import { randomUUID } from 'node:crypto';
import { AppError } from '../../shared/errors';
import type { InteractionAnswer, PendingInteraction } from '../../shared/mcp';
import { Emitter } from '../platform/Emitter';

type Ask = PendingInteraction extends infer P ? (P extends PendingInteraction ? Omit<P, 'id' | 'at'> : never) : never;

interface Waiting {
  interaction: PendingInteraction;
  resolve: (answer: InteractionAnswer) => void;
  reject: (error: Error) => void;
}

/**
 * Server-initiated requests (elicitation, sampling) wait here until the operator answers in the
 * UI. An automatic responder can be installed for headless runs (CLI, conformance client).
 */
export class InteractionBroker {
  private readonly waiting = new Map<string, Waiting>();
  private readonly changes = new Emitter<PendingInteraction[]>();
  private autoResponder?: (interaction: PendingInteraction) => InteractionAnswer | undefined;

  setAutoResponder(responder: ((interaction: PendingInteraction) => InteractionAnswer | undefined) | undefined) {
    this.autoResponder = responder;
  }

  ask(request: Ask, signal?: AbortSignal): Promise<InteractionAnswer> {
    const interaction = { ...request, id: randomUUID(), at: Date.now() } as PendingInteraction;
    const automatic = this.autoResponder?.(interaction);
    if (automatic) return Promise.resolve(automatic);
    return new Promise<InteractionAnswer>((resolve, reject) => {
      const withdrawn = () => this.waiting.get(interaction.id)?.reject(new AppError('Canceled', 'The server withdrew the request'));
      const done = () => {
        // The signal may outlive this request (a call that asks many times): release its listener.
        signal?.removeEventListener('abort', withdrawn);
        this.waiting.delete(interaction.id);
        this.emit();
      };
      this.waiting.set(interaction.id, {
        interaction,
        resolve: (answer) => {
          done();
          resolve(answer);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      signal?.addEventListener('abort', withdrawn, { once: true });
      this.emit();
    });
  }

  answer(id: string, answer: InteractionAnswer) {
    const waiting = this.waiting.get(id);
    if (!waiting) throw new AppError('NotFound', 'That request is no longer pending (answered, withdrawn or its server disconnected)');
    if (waiting.interaction.kind !== answer.kind) throw new AppError('InvalidInput', `Expected a ${waiting.interaction.kind} answer`);
    waiting.resolve(answer);
  }

  /**
   * The server reports that a URL-mode elicitation finished out of band (SEP-1036
   * notifications/elicitation/complete): the question still open for it is answered as accepted.
   */
  completeUrlElicitation(server: string, elicitationId: string) {
    for (const waiting of [...this.waiting.values()]) {
      const { interaction } = waiting;
      if (interaction.server === server && interaction.kind === 'elicitation' && interaction.mode === 'url' && interaction.elicitationId === elicitationId) {
        waiting.resolve({ kind: 'elicitation', action: 'accept' });
      }
    }
  }

  /** Rejects everything a server was waiting on, e.g. when it disconnects. */
  cancelForServer(server: string, reason: string) {
    for (const waiting of [...this.waiting.values()]) {
      if (waiting.interaction.server === server) waiting.reject(new AppError('Canceled', reason));
    }
  }

  pending(): PendingInteraction[] {
    return [...this.waiting.values()].map((w) => w.interaction);
  }

  onChange(listener: (pending: PendingInteraction[]) => void): () => void {
    return this.changes.on(listener);
  }

  private emit() {
    const pending = this.pending();
    this.changes.emit(pending);
  }
}
