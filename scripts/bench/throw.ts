/**
 * The board's throw (src/board/dice/physics.ts, cannon-es): what simulating a roll costs before it is
 * shown, by number of dice, as a ratio to one d6 in the same run (the browser runs the same code in a
 * Web Worker; Node gives the figure without a page around it).
 *
 *   npx tsx scripts/bench/throw.ts [throws per size, default 20]
 */
import { simulateThrow } from '../../src/board/dice/physics';
import { shapeOf } from '../../src/board/dice/shapes';

const throws = Number(process.argv[2] ?? 20);
const TYPES = ['d4', 'd6', 'd8', 'd10', 'd12', 'd20'];
// As the table draws them: 0.85 units, more than 12 dice smaller (table.ts).
const scaleFor = (n: number) => 0.85 * Math.min(1, Math.sqrt(12 / n));

function measure(n: number) {
  const times: number[] = [];
  let frames = 0;
  for (let k = 0; k < throws; k++) {
    const dice = Array.from({ length: n }, (_, i) => ({ shape: shapeOf(n === 1 ? 'd6' : TYPES[i % TYPES.length]!), scale: scaleFor(n) }));
    const started = performance.now();
    const r = simulateThrow(`bench-${n}-${k}`, dice, (k * 47) % 360, 0.5 + (k % 10) / 10);
    times.push(performance.now() - started);
    frames += r.count;
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, p90: times[Math.floor(times.length * 0.9)]!, seconds: frames / throws / 60 };
}

measure(5); // warm-up
const base = measure(1);
console.log('dice  median ms  p90 ms  x one d6  animation s');
for (const n of [1, 2, 5, 10, 20, 30]) {
  const m = n === 1 ? base : measure(n);
  console.log(
    `${String(n).padStart(4)}  ${m.median.toFixed(1).padStart(9)}  ${m.p90.toFixed(1).padStart(6)}  ${(m.median / base.median).toFixed(1).padStart(8)}  ${m.seconds.toFixed(1).padStart(11)}`,
  );
}
