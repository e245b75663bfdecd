/**
 * Who allocates in a V8 sampling heap profile (bench:http --heap-prof): bytes allocated during the
 * run by package/file and by function, collected or not. What the young generation collects per
 * request sets how often scavenges stop the event loop, and what survives them feeds the major
 * collections whose marking competes with the event loop for the server's core.
 *
 *   npx tsx scripts/bench/lib/heapProfile.ts profiles/http-XXX.heapprofile [top=25]
 */
import fs from 'node:fs';
import { area, printShares, profileArgs } from './profileAreas';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

const { file, top } = profileArgs('usage: heapProfile.ts FILE.heapprofile [top]');
const { head, samples } = JSON.parse(fs.readFileSync(file, 'utf8')) as { head: HeapNode; samples: Array<{ size: number }> };
const areas = new Map<string, number>();
const functions = new Map<string, number>();
/** Inclusive bytes of this project's own functions (each src/ frame on the stack counts the allocation once). */
const ours = new Map<string, number>();
const walk = (n: HeapNode, stack: string[]) => {
  const a = area(n.callFrame.url, n.callFrame.functionName);
  const f = `${n.callFrame.functionName || '(anonymous)'} ${a}:${n.callFrame.lineNumber + 1}`;
  const next = a.startsWith('src/') && !stack.includes(f) ? [...stack, f] : stack;
  if (n.selfSize) {
    areas.set(a, (areas.get(a) ?? 0) + n.selfSize);
    functions.set(f, (functions.get(f) ?? 0) + n.selfSize);
    for (const s of next) ours.set(s, (ours.get(s) ?? 0) + n.selfSize);
  }
  for (const c of n.children) walk(c, next);
};
walk(head, []);
const total = [...areas.values()].reduce((x, y) => x + y, 0);
const show = (title: string, m: Map<string, number>) => printShares(title, m, total, top, (b) => `${(b / 1048576).toFixed(1).padStart(8)} MiB`);
console.log(`${file}: ${(total / 1048576).toFixed(0)} MiB allocated (sampled, ${samples.length} samples)`);
show('allocated by package / file', areas);
show('allocated by function (self)', functions);
show("allocated under this project's functions (inclusive)", ours);
