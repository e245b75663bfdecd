import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server } from 'node:net';

/**
 * What one running server owns beyond its arguments: its database, caches, quotas, event listeners
 * and workers. Each module keeps its own part private, declared with `perApp()`; the context is only
 * the place those parts live, so that two servers in one process (tests) never share one.
 *
 * How code finds its context: a process runs one server (production, the CLI, a test file of its
 * own), and its context is simply the process's. A process that hosts several at once (grouped test
 * files) calls `hostSeveralApps()` first; from then on each server's start-up runs inside its context
 * (`withinAppContext`) and AsyncLocalStorage carries it to everything that start-up sets going:
 * requests, sockets, Redis replies, timers. Production never pays for that propagation.
 */
export class AppContext {
  private readonly parts = new Map<object, unknown>();

  /** This context's part `key`, made by `create` the first time it is asked for. */
  part<T>(key: object, create: () => T): T {
    if (this.parts.has(key)) return this.parts.get(key) as T;
    const made = create();
    this.parts.set(key, made);
    return made;
  }
}

let processContext = new AppContext();
let scoped: AsyncLocalStorage<AppContext> | null = null;

/** The context of the code running now: its server's, or the process's outside any server. */
export function currentAppContext(): AppContext {
  return scoped?.getStore() ?? processContext;
}

/**
 * A module's part of every context: `const state = perApp(() => ({ ... }))`, then `state()` where a
 * module-level variable would have been. The last context asked is remembered, so the common case
 * (one server) costs a comparison.
 */
export function perApp<T>(create: () => T): () => T {
  const key = {};
  let lastContext: AppContext | null = null;
  let lastPart: T;
  return () => {
    const context = currentAppContext();
    if (context !== lastContext) {
      lastPart = context.part(key, create);
      lastContext = context;
    }
    return lastPart;
  };
}

/**
 * A context for a server about to start: the process's own while a process runs one server at a time
 * (what the process set up before the start, a test's event listener say, is the server's), a new
 * one for each server in a process that hosts several.
 */
export function newAppContext(): AppContext {
  return scoped ? new AppContext() : processContext;
}

/** Run `fn` (and everything it sets going) in `context`. */
export function withinAppContext<T>(context: AppContext, fn: () => T): T {
  return scoped ? scoped.run(context, fn) : fn();
}

/**
 * The context of code that runs outside every server's from now on (the process's until then): a test
 * file sharing a process with others sets up, before its server starts, what that server will use.
 */
export function setOutsideAppContext(context: AppContext): void {
  processContext = context;
}

/** This process will host several servers at once: scope contexts from now on. Call before starting any. */
export function hostSeveralApps(): void {
  scoped ??= new AsyncLocalStorage<AppContext>();
}

/**
 * Where several servers share a process: keep `context` on what `server` emits and on the connections
 * it accepts. Node makes an accepted socket's handle before any JavaScript runs, and its HTTP parser
 * reads the handle directly: HTTP requests get a context from the parser, but an upgrade to a
 * WebSocket, and every frame after it, would run in none (Socket.IO's handshakes would find no database).
 */
export function keepAppContextOnConnections(server: Server, context: AppContext): void {
  const storage = scoped;
  if (!storage) return;
  const inContext = (target: { emit: (...args: unknown[]) => boolean }) => {
    const emit = target.emit;
    target.emit = function emitInContext(this: unknown, ...args: unknown[]) {
      return storage.run(context, () => emit.apply(this, args));
    };
  };
  inContext(server as unknown as { emit: (...args: unknown[]) => boolean });
  server.on('connection', inContext);
}
