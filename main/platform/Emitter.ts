/** What an emitter does with an error thrown by one of its listeners (log it, count it). */
export type ListenerErrorHandler = (error: unknown) => void;

interface Registration<T> {
  readonly listener: (value: T) => void;
  active: boolean;
}

/**
 * The one home for "tell whoever listens": services expose `onX(listener) → unsubscribe` and call
 * `emit(value)` when X happens.
 *
 * - Each `on()` is a registration of its own: a function added twice hears each value twice, and
 *   each returned unsubscribe removes only its own registration (calling it again does nothing).
 * - An emit reaches the listeners registered when it started and still registered when their turn
 *   comes: one unsubscribed (or `clear()`ed) during the emit is skipped, one added during it hears
 *   only later emits. A listener may emit again; that inner emit runs to the end first.
 * - A listener that throws stops neither the other listeners nor the code that emitted: the error
 *   goes to `onListenerError` (ignored when none is given).
 */
export class Emitter<T = void> {
  private readonly registrations = new Set<Registration<T>>();

  constructor(private readonly onListenerError?: ListenerErrorHandler) {}

  /** Listeners registered now. */
  get size(): number {
    return this.registrations.size;
  }

  on(listener: (value: T) => void): () => void {
    const registration: Registration<T> = { listener, active: true };
    this.registrations.add(registration);
    return () => {
      registration.active = false;
      this.registrations.delete(registration);
    };
  }

  emit(value: T): void {
    for (const registration of [...this.registrations]) {
      if (!registration.active) continue;
      try {
        registration.listener(value);
      } catch (error) {
        this.report(error);
      }
    }
  }

  /** Removes every listener (a service shutting down). */
  clear(): void {
    for (const registration of this.registrations) registration.active = false;
    this.registrations.clear();
  }

  private report(error: unknown): void {
    try {
      this.onListenerError?.(error);
    } catch {
      // The error handler failing must not reach the emitter's owner either.
    }
  }
}
