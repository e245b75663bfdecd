/**
 * At most one run per key and window, the first at once: what arrives for that key within the window
 * after a run is folded into one more run when the window closes, with the latest item. Meant for
 * announcements that present the state as it is when they run (RoomUpdateEvent), so that folding
 * loses nothing: the trailing run shows every change folded into it.
 *
 * A window of 0 (or less) runs every item at once.
 */
export class KeyedThrottle<T> {
  private readonly windows = new Map<string, { timer: NodeJS.Timeout; pending: { item: T } | null }>();

  constructor(
    private readonly windowMs: number,
    private readonly run: (item: T) => void,
  ) {}

  push(key: string, item: T): void {
    if (this.windowMs <= 0) return this.run(item);
    const open = this.windows.get(key);
    if (open) {
      open.pending = { item };
      return;
    }
    this.open(key);
    this.run(item);
  }

  /** Items folded and not run yet (tests, health). */
  get pending(): number {
    let n = 0;
    for (const window of this.windows.values()) if (window.pending) n++;
    return n;
  }

  /** Run what is folded now, and close every window (shutdown, drain). */
  flush(): void {
    const windows = [...this.windows.values()];
    this.windows.clear();
    for (const window of windows) {
      clearTimeout(window.timer);
      if (window.pending) this.run(window.pending.item);
    }
  }

  private open(key: string) {
    const window = { timer: setTimeout(() => this.close(key, window), this.windowMs), pending: null };
    this.windows.set(key, window);
  }

  private close(key: string, window: { pending: { item: T } | null }) {
    if (this.windows.get(key) !== window) return;
    this.windows.delete(key);
    if (!window.pending) return;
    // The trailing run opens a window of its own: a steady stream runs once per window.
    this.open(key);
    this.run(window.pending.item);
  }
}
