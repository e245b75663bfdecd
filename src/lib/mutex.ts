/** A FIFO async mutex: run() calls execute one at a time, in the order they were made. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  /** Calls running or waiting their turn (metrics: the one running holds the lock, the others wait). */
  pending = 0;

  run<T>(fn: () => Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail.then(fn, fn).finally(() => this.pending--);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
