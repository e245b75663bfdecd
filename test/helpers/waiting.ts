/**
 * Resolves once `check()` answers something truthy, re-checked whenever `subscribe`'s callback is
 * called (a client received something); rejects after `timeoutMs` with `describe()` in the message.
 */
export function waitUntil<T>(
  subscribe: (wake: () => void) => () => void,
  check: () => T | undefined | null | false,
  what: string,
  describe: () => string,
  timeoutMs = 10_000,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let stop = () => {};
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${describe()}`));
    }, timeoutMs);
    const probe = () => {
      let result: T | undefined | null | false;
      try {
        result = check();
      } catch (err) {
        clearTimeout(timer);
        stop();
        return reject(err);
      }
      if (!result) return;
      clearTimeout(timer);
      stop();
      resolve(result);
    };
    stop = subscribe(probe);
    probe();
  });
}
