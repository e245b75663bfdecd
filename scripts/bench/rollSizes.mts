/**
 * What the largest rolls store and send to each member of their room (docs/reliability.md, "Request and
 * storage limits"): each request below is posted into a room with one member connected through
 * socket.io-client; prints the answer, the stored roll's size (GET /roll/{uuid}) and the RollCreateEvent
 * the member received, in bytes of JSON.
 *
 *   TEST_DB=sqlite npx tsx scripts/bench/rollSizes.mts
 *   ROOT=/path/to/another/checkout TEST_DB=sqlite npx tsx scripts/bench/rollSizes.mts   (its code, for a before/after)
 */
const root = process.env.ROOT ?? new URL('../..', import.meta.url).pathname;
const { startTestServer } = await import(`${root.replace(/\/$/, '')}/test/helpers/server.ts`);
const { connectWelcomed, closeAll } = await import(`${root.replace(/\/$/, '')}/test/helpers/sockets.ts`);
const s = await startTestServer();
const owner = await s.newUser();
const member = await s.newUser();
const room = (await owner.api.post('/room', { name: 'fig' })).body.data.slug;
await member.api.post(`/room/${room}/participant`, {});
const c = await connectWelcomed(s.url, room, { token: member.key });
async function measure(name: string, body: any) {
  const req = JSON.stringify(body).length;
  const r = await owner.api.post('/roll', { ...body, room });
  if (r.status !== 201) {
    console.log(`${name}: request ${req} B -> ${r.status} ${r.body?.data?.code} at ${r.body?.data?.details?.[0]?.path}`);
    return;
  }
  const ev = await c.waitFor('RollCreateEvent', (p: any) => p.data.uuid === r.body.data.uuid, 60000);
  const stored = (await owner.api.get(`/roll/${r.body.data.uuid}`)).text.length;
  console.log(
    `${name}: request ${req} B -> 201, roll ${stored} B (equation ${r.body.data.equation.length}, values ${r.body.data.values.length}), each member receives ${JSON.stringify(ev).length} B`,
  );
}
const sel = (n: number) => Array.from({ length: n }, (_, i) => `>${1_000_000 + i}`).join(',');
await measure('operator 180 KB', { dice: [{ type: 'd6' }, { type: 'd6' }], operator: { rr: { [sel(20000)]: [0] } } });
await measure('operator 900 KB', { dice: [{ type: 'd6' }, { type: 'd6' }], operator: { rr: { [sel(100000)]: [0] } } });
await measure('100 dice, 2 KB meta + 255 label each', {
  dice: Array.from({ length: 100 }, () => ({ type: 'd20', meta: 'm'.repeat(2040), label: 'l'.repeat(255) })),
});
await measure('50 d2 with 2 KB meta each, exploding on 2', {
  dice: Array.from({ length: 50 }, () => ({ type: 'd2', meta: 'm'.repeat(2040) })),
  operator: { e: '2' },
});
const all = Array.from({ length: 100 }, (_, i) => i);
await measure('largest accepted: 100 dice, 160 B label+meta each, 800 B operator', {
  dice: all.map(() => ({ type: 'd6', label: 'L'.repeat(60), meta: 'm'.repeat(96) })),
  operator: { k: { h25: all.slice(0, 50), h20: all.slice(50) }, groups: [{ parts: [all.slice(0, 50), all.slice(50)], k: 'h1' }] },
  label: 'l'.repeat(255),
  external_id: 'e'.repeat(255),
});
await measure('100 d2 exploding on 2, no meta', { dice: Array.from({ length: 100 }, () => ({ type: 'd2' })), operator: { e: '2' } });
await measure('plain 1d20', { dice: [{ type: 'd20' }] });
closeAll(c);
await s.stop();
