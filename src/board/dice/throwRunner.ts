/**
 * Runs throws in the physics worker (physicsWorker.ts), one at a time in order, so a big handful does not
 * freeze the page while it is simulated; in the page itself when no worker can be made.
 */
import { simulateThrow, type ThrowDie, type ThrowResult } from './physics';
import type { ThrowRequest } from './physicsWorker';

let worker: Worker | null | undefined;
/** where the last throw was simulated, for tests */
export const ranIn = { last: 'none' as 'none' | 'worker' | 'page' };
let next = 1;
/** throws sent to the worker: how to finish each, and how to do it here if the worker fails */
const waiting = new Map<number, { done: (result: ThrowResult) => void; here: () => void }>();

function physicsWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    // Beside board.js, with its version (the bundle's own URL carries `?v=`).
    const version = new URL(import.meta.url).searchParams.get('v') ?? '';
    worker = new Worker(`/board/assets/physics.js?v=${encodeURIComponent(version)}`);
    worker.onmessage = (event: MessageEvent<{ id: number; result: ThrowResult }>) => {
      waiting.get(event.data.id)?.done(event.data.result);
      waiting.delete(event.data.id);
    };
    // A worker that cannot start (blocked, broken): the page simulates what it was given, and all later throws.
    worker.onerror = () => {
      worker = null;
      for (const [id, job] of waiting) {
        waiting.delete(id);
        job.here();
      }
    };
  } catch {
    worker = null;
  }
  return worker;
}

export function runThrow(seed: string, dice: ThrowDie[], direction: number, velocity: number): Promise<ThrowResult> {
  const w = physicsWorker();
  if (!w) {
    ranIn.last = 'page';
    return Promise.resolve(simulateThrow(seed, dice, direction, velocity));
  }
  const request: ThrowRequest = {
    id: next++,
    seed,
    direction,
    velocity,
    dice: dice.map((d) => ({ type: d.shape.type, scale: d.scale, weight: d.weight, inertia: d.inertia })),
  };
  return new Promise((resolve) => {
    const here = () => {
      ranIn.last = 'page';
      resolve(simulateThrow(seed, dice, direction, velocity));
    };
    waiting.set(request.id, {
      done: (result) => {
        ranIn.last = 'worker';
        resolve(result);
      },
      here,
    });
    w.postMessage(request);
  });
}
