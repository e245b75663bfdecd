import type { EventEmitter } from 'node:events';

/**
 * Boundaries for untrusted input (docs/reliability.md, "Untrusted input at the realtime
 * boundaries"). What a stranger sends reaches this code inside event-emitter callbacks (an HTTP
 * upgrade, a websocket frame, a Socket.IO event, a Redis message); a throw there has no caller to
 * catch it and becomes an uncaught exception, which ends the process for everyone. Each such callback
 * is wrapped here: whatever it throws, synchronously or in the promise it returns, goes to `onError`
 * (log with context, close that one connection) and stops there.
 */
export type OnError<A extends unknown[]> = (err: unknown, ...args: A) => void;

export function guarded<A extends unknown[]>(handler: (...args: A) => unknown, onError: OnError<A>): (...args: A) => void {
  const fail = (err: unknown, args: A) => {
    try {
      onError(err, ...args);
    } catch {
      // The error handler's own failure (a logger that throws) must not escape either.
    }
  };
  return (...args: A) => {
    try {
      const result = handler(...args);
      if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
        (result as Promise<unknown>).then(undefined, (err: unknown) => fail(err, args));
      }
    } catch (err) {
      fail(err, args);
    }
  };
}

/**
 * Make `emitter` call each listener of `events` on its own guard: one listener that throws on a
 * message (a library's, such as the Socket.IO Redis adapter decoding a malformed message) neither
 * ends the process nor keeps the listeners after it from hearing that message. Other events keep
 * EventEmitter's own behaviour. Answers the function that puts `emit` back.
 */
export function guardListeners(emitter: EventEmitter, events: readonly string[], onError: (err: unknown, event: string) => void): () => void {
  const guardedEvents = new Set(events);
  const original = emitter.emit; // eslint-disable-line @typescript-eslint/unbound-method -- called with the emitter as `this`
  const emit = function (this: EventEmitter, event: string | symbol, ...args: unknown[]): boolean {
    if (typeof event !== 'string' || !guardedEvents.has(event)) return original.call(this, event, ...args);
    // rawListeners: `once` wrappers remove themselves when called, as emit would have done.
    const listeners = this.rawListeners(event) as Array<(...a: unknown[]) => unknown>;
    for (const listener of listeners)
      guarded(
        () => listener.apply(this, args),
        (err) => onError(err, event),
      )();
    return listeners.length > 0;
  };
  emitter.emit = emit;
  return () => {
    if (emitter.emit === emit) emitter.emit = original;
  };
}

/** ioredis's events for pub/sub messages (plain, pattern, sharded; strings and Buffers). */
export const REDIS_MESSAGE_EVENTS = ['message', 'messageBuffer', 'pmessage', 'pmessageBuffer', 'smessage', 'smessageBuffer'] as const;

/**
 * What arrives on the subscriber connection is decoded by this process's listeners and the Socket.IO
 * adapter's, inside ioredis's socket handler: one malformed message (anyone who can PUBLISH on a
 * channel of the deployment) must be one log line, not the end of every instance.
 */
export function guardRedisMessages(sub: EventEmitter, log: { error(fields: object, message: string): void }): () => void {
  return guardListeners(sub, REDIS_MESSAGE_EVENTS, (err, event) =>
    log.error({ ...errorFields(err), event }, 'a Redis pub/sub message could not be handled; dropped'),
  );
}

/**
 * What a log line says of whatever was thrown: an Error's message and stack, a string, or the type of
 * anything else (never String(err): a thrown object may have a toString that throws in turn).
 */
export function errorFields(err: unknown): { err: string; stack?: string } {
  if (err instanceof Error) return { err: err.message, stack: err.stack };
  return { err: typeof err === 'string' ? err.slice(0, 500) : `a thrown ${err === null ? 'null' : typeof err}` };
}
