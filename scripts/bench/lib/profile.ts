/**
 * Where the time goes in a V8 .cpuprofile (node --cpu-prof): self time by package/file and by function.
 *
 *   npx tsx scripts/bench/lib/profile.ts profiles/CPU.xxx.cpuprofile [top=25]
 *
 * Also total (inclusive) time of this project's own functions: a sample counts once for every
 * src/ function on its stack, which shows what each step of a request costs with all it calls.
 */
import fs from 'node:fs';
import { area, printShares, profileArgs } from './profileAreas';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const { file, top } = profileArgs('usage: profile.ts FILE.cpuprofile [top]');
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const areas = new Map<string, number>();
const functions = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  const a = area(n.callFrame.url, n.callFrame.functionName);
  areas.set(a, (areas.get(a) ?? 0) + us);
  const f = `${n.callFrame.functionName || '(anonymous)'} ${a}:${n.callFrame.lineNumber + 1}`;
  functions.set(f, (functions.get(f) ?? 0) + us);
}
const show = (title: string, m: Map<string, number>) => printShares(title, m, total, top, (us) => `${(us / 1000).toFixed(0).padStart(7)} ms`);
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
show('self time by package / file', areas);
show('self time by function', functions);

// Inclusive time of the project's own functions (src/): walk each sample's stack once.
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map<string, number>();
for (const [id, us] of self) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const n = byId.get(at)!;
    const a = area(n.callFrame.url, n.callFrame.functionName);
    if (!a.startsWith('src/')) continue;
    const f = `${n.callFrame.functionName || '(anonymous)'} ${a}:${n.callFrame.lineNumber + 1}`;
    if (seen.has(f)) continue;
    seen.add(f);
    inclusive.set(f, (inclusive.get(f) ?? 0) + us);
  }
}
show('total time (self and callees) of src/ functions', inclusive);
