/**
 * What dddice's numbering of values (src/dice/numbering.ts: a d10x's tens digit, a fate die's -1/0/1)
 * costs the one roll presenter: presentRollValue over 100 stored values (standard dice, d10x, df) against
 * wireValue alone over the same values, interleaved in one process, CPU time, median of rounds (each
 * round a tinybench run of both, lib/micro.ts).
 *
 *   npx tsx scripts/bench/valueNumbering.ts [CPU-seconds per round, default 0.3]
 *   VALUE_KINDS=d20 npx tsx scripts/bench/valueNumbering.ts    (only those dice of the mix)
 */
import { wireValue } from '../../src/dice';
import { presentRollValue } from '../../src/rolls/present';
import type { RollValueRecord } from '../../src/rolls/store/records';
import { batched, medianOfRounds } from './lib/micro';

const seconds = Number(process.argv[2] ?? 0.3);
const ROUNDS = 5;
const now = new Date();
const only = process.env.VALUE_KINDS?.split(',');
const kinds = (
  [
    ['d20', 17, 17],
    ['d10x', 6, 50],
    ['df', 1, -1],
    ['d6', 4, 4],
    ['d10', 10, 10],
  ] as [string, number, unknown][]
).filter(([type]) => !only || only.includes(type));
const values: RollValueRecord[] = Array.from({ length: 100 }, (_, i) => {
  const [type, value, face] = kinds[i % kinds.length]!;
  return {
    id: i + 1,
    uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    rollId: 1,
    position: i,
    dieIndex: i,
    type,
    theme: 'standard',
    value,
    valueToDisplay: face,
    numericValue: Number(face),
    origin: 'roll',
    label: null,
    meta: null,
    isHidden: false,
    isUserValue: false,
    isVisible: true,
    isCleared: false,
    isDropped: false,
    isSuccess: false,
    isFailure: false,
    isCompounded: false,
    isPenetrated: false,
    createdAt: now,
    updatedAt: now,
  };
});
const roll = { userId: 1 };

let sink = 0;
const present = () => {
  for (const v of values) sink += presentRollValue(roll, v, 1).value ?? 0;
};
const numbering = () => {
  for (const v of values) sink += wireValue(v.type, v.value!, v.valueToDisplay as number);
};
/** tinybench calls each task for `seconds` of this process's CPU time; a call is a batch of 200 passes. */
const BATCH = 200;
const batchMs = await medianOfRounds({ present: batched(present, BATCH), numbering: batched(numbering, BATCH) }, ROUNDS, {
  time: seconds * 1000,
  cpuTime: true,
});
const perValue = (ms: number) => (ms * 1e6) / (BATCH * values.length);
const p = perValue(batchMs.present!);
const w = perValue(batchMs.numbering!);
console.log(`node ${process.version}, ${ROUNDS} interleaved rounds of ${seconds} CPU-s, median; 100 values (${kinds.map((k) => k[0]).join(', ')})`);
console.log(`presentRollValue: ${p.toFixed(0)} ns a value; wireValue: ${w.toFixed(0)} ns a value (${((w / p) * 100).toFixed(1)}% of presenting it)`);
if (sink === 0.5) console.log('');
