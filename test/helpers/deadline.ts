/**
 * `promise`, or a rejection naming `what` after `ms`: every wait of a test helper has a deadline of its
 * own, so a silent server fails the test in seconds with a sentence instead of holding it until ava's
 * 120 s timeout.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
