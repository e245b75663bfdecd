/**
 * One audience of bench:fanout as a process of its own (spawned by lib/audienceProcess.ts): a socket
 * per participant to a room, Socket.IO or Pusher, counting what arrives. bench:fanout runs one such
 * process per audience (the service's Socket.IO sockets, the bare servers' sockets, the Pusher
 * clients), all pinned to the clients' core. Each holds only its own sockets: when one process held
 * both the service's and the bare servers' 2,000 sockets, its collector's threads took its core in the
 * middle of the blocks (docs/performance.md, "Who was late"), and that was the harness's cost, not the
 * servers'.
 *
 * IPC requests (`{id, cmd, ...}`, answered `{id, ...}`):
 *   connect {kind: 'socket.io' | 'pusher', urls, slug, keys, pusherJs}: one client per key, the i-th to urls[i % 2]
 *   block {stamp: 'created_at' | 'sentAt'}: collect this process fully, then record a new block's deliveries
 *   count {block?}: events received (all of them, or the block's deliveries), for settling
 *   tally {ids, answeredAt, wallMs}: the block's deliveries of `ids`, their latencies, each roll's slowest
 *     arrival and each delivery timed from its roll's 201 (`answeredAt`, epoch ms by id)
 *   sample: the first delivery's `data`;  close: every client closes;  memory (child.ts)
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { answerMemory, watchStalls } from './child';
import { countAll, Tracker } from './delivery';
import { tolerateSocketResets } from './processes';
import { connectPusherRoom, type PusherListener } from './pusher';
import { connectRetries, connectRoom, inBatches, type Listener } from './sockets';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;
const ownStalls = watchStalls(Number(process.env.BENCH_TRACE_SLOW_MS || 0));
tolerateSocketResets();

type Payload = { data: { uuid: string; created_at: string }; sentAt?: number };
const stamps = { created_at: (p: Payload) => Date.parse(p.data.created_at), sentAt: (p: Payload) => p.sentAt! };

let sockets: Listener[] = [];
let pushers: PusherListener[] = [];
let tracker: Tracker | null = null;
let blockStart = 0;
let sample: unknown = null;

function listen(index: number, payload: Payload): void {
  sample ??= payload.data;
  tracker?.record(index, payload);
}

const handlers: Record<string, (m: any) => Promise<Record<string, unknown>> | Record<string, unknown>> = {
  async connect(m: { kind: 'socket.io' | 'pusher'; urls: [string, string]; slug: string; keys: string[]; pusherJs: number }) {
    const start = Date.now();
    const retried = connectRetries.count;
    const url = (i: number) => m.urls[i % 2]!;
    if (m.kind === 'socket.io') {
      sockets = await inBatches(m.keys, 25, (key, i) => connectRoom(url(i), m.slug, key, { timeoutMs: 60_000 }));
      sockets.forEach((s, i) => s.socket.on('RollCreateEvent', (p: Payload) => listen(i, p)));
    } else {
      pushers = await inBatches(m.keys, 25, (key, i) => connectPusherRoom(url(i), m.slug, key, { pusherJs: i < m.pusherJs, timeoutMs: 60_000 }));
      pushers.forEach((p, i) => p.on('App\\Events\\RollCreateEvent', (d: Payload) => listen(i, d)));
    }
    return { ms: Date.now() - start, retried: connectRetries.count - retried, pusherJs: pushers.filter((p) => p.kind === 'pusher-js').length };
  },
  block(m: { stamp: keyof typeof stamps }) {
    tracker = null;
    collectGarbage();
    ownStalls();
    tracker = new Tracker(sockets.length || pushers.length, (p: Payload) => p.data.uuid, stamps[m.stamp]);
    blockStart = Date.now();
    return {};
  },
  count(m: { block?: boolean }) {
    return { count: m.block ? (tracker?.count ?? 0) : countAll(sockets) + countAll(pushers) };
  },
  tally(m: { ids: string[]; answeredAt?: Array<[string, number]>; wallMs: number }) {
    if (!tracker) throw new Error('no block under way');
    const answeredAt = new Map(m.answeredAt ?? []);
    const slowest = new Map<string, number>();
    const fromAnswer: number[] = [];
    for (const [id, at] of tracker.arrivals()) {
      slowest.set(id, Math.max(slowest.get(id) ?? 0, at));
      const answered = answeredAt.get(id);
      if (answered !== undefined) fromAnswer.push(at - answered);
    }
    const delivery = tracker.tally(m.ids, m.wallMs);
    return { delivery, fromAnswer, slowest: [...slowest], stalls: ownStalls().filter(([at]) => at >= blockStart) };
  },
  sample: () => ({ sample }),
  close() {
    for (const s of sockets) s.socket.close();
    for (const p of pushers) p.close();
    sockets = [];
    pushers = [];
    return {};
  },
};

answerMemory(() => ({ sockets: sockets.length, pushers: pushers.length }));
/** Runs the command `m` names and answers its result, or its failure, to the parent. */
async function answer(m: { id?: number; cmd?: string }): Promise<void> {
  const handler = m.cmd ? handlers[m.cmd] : undefined;
  if (!handler || typeof m.id !== 'number') return;
  try {
    process.send?.({ id: m.id, ...(await handler(m)) });
  } catch (err) {
    process.send?.({ id: m.id, error: (err as Error).stack ?? String(err) });
  }
}
// Fire and forget: answer() sends its own failures to the parent.
process.on('message', (m: { id?: number; cmd?: string }) => void answer(m));
process.send?.({ type: 'ready', pid: process.pid });
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
