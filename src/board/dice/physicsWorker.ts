/**
 * The throw's simulation off the page's main thread (GET /board/assets/physics.js, a classic worker:
 * the page's CSP allows workers from its own origin). The same code as in the page, so the same
 * frames: the page falls back to running it itself where workers are missing.
 */
import { simulateThrow } from './physics';
import { shapeOf } from './shapes';

export interface ThrowRequest {
  id: number;
  seed: string;
  dice: { type: string; scale: number; weight?: number; inertia?: number }[];
  direction: number;
  velocity: number;
}

const scope = self as unknown as { onmessage: ((e: MessageEvent<ThrowRequest>) => void) | null; postMessage(message: unknown, transfer: Transferable[]): void };

scope.onmessage = (event) => {
  const { id, seed, dice, direction, velocity } = event.data;
  const result = simulateThrow(
    seed,
    dice.map((d) => ({ ...d, shape: shapeOf(d.type) })),
    direction,
    velocity,
  );
  scope.postMessage(
    { id, result },
    result.frames.map((f) => f.buffer as ArrayBuffer),
  );
};
