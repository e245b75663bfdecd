import test from 'ava';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { startCluster, type Cluster } from '../helpers/cluster';
import { WebhookReceiver, type Received } from '../helpers/webhookReceiver';
import { isolatedRedis, sleep, teardownSteps } from '../faults/support';

// Two instances on PostgreSQL + Redis deliver one room's webhook: each event once (a webhook-id seen
// twice only as a retry after a failed attempt), through a receiver that fails for a while, and
// through the death (SIGKILL) of the instance that made the rolls.
let cluster: Cluster;
const receiver = new WebhookReceiver();
const teardown = teardownSteps(test);

test.before(async () => {
  await receiver.start();
  teardown.push(() => receiver.stop());
  const redis = await isolatedRedis();
  teardown.push(() => redis.close());
  cluster = await startCluster(2, {
    ...redis.env,
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_SCHEDULE: '200ms,300ms,500ms,1s,1s,2s,2s',
    WEBHOOK_POLL_MS: '100',
    // A killed instance's claims expire after 3 s (three times the attempt timeout).
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_LEASE_MS: '1000',
    OUTBOX_GRACE_MS: '1000',
    OUTBOX_SWEEP_MS: '300',
  });
  teardown.push(() => cluster.stop());
});

const DICE = [
  { type: 'd6', theme: 'standard' },
  { type: 'd20', theme: 'standard', is_hidden: true },
];

function verify(secret: string, got: Received): { type: string; data: { uuid: string; id?: number; user?: { uuid: string } }; seq: number | null } {
  return new Webhook(secret).verify(got.body, {
    'webhook-id': String(got.headers['webhook-id']),
    'webhook-timestamp': String(got.headers['webhook-timestamp']),
    'webhook-signature': String(got.headers['webhook-signature']),
  }) as { type: string; data: { uuid: string }; seq: number | null };
}

async function roomWithHook(path: string, events = ['roll.created']) {
  const owner = await cluster.newUser(0);
  const slug = (await owner.api.post('/room', { name: 'Hooked' })).body.data.slug as string;
  const created = await owner.api.post('/webhook', { url: receiver.url + path, events, room: slug });
  if (created.status !== 201) throw new Error(`webhook: ${created.status} ${created.text}`);
  return { owner, slug, secret: created.body.data.secret as string, id: created.body.data.id as string };
}

test.serial('200 rolls on two instances, the receiver failing (500) for a while: each delivered, each webhook-id delivered once', async (t) => {
  const path = '/two-instances';
  const { owner, slug, secret } = await roomWithHook(path);
  let failing = true;
  receiver.answer(path, () => (failing ? { status: 500, body: 'down' } : { status: 200 }));
  const [A, B] = cluster.instances as [Cluster['instances'][0], Cluster['instances'][0]];
  const uuids: string[] = [];
  for (let batch = 0; batch < 20; batch++) {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => owner.api.post(`${(i % 2 ? B : A).url}/api/1.0/roll`, { dice: DICE, room: slug })));
    for (const res of answers) {
      t.is(res.status, 201);
      uuids.push(res.body.data.uuid);
    }
    if (batch === 10) failing = false;
  }
  failing = false;
  const got = await receiver.waitFor(
    path,
    (r) => new Set(r.filter((x) => x.answered === 200).map((x) => x.headers['webhook-id'])).size >= 200,
    '200 events delivered',
    60_000,
  );
  await sleep(1000);
  const delivered = receiver.at(path).filter((x) => x.answered === 200);
  const ids = delivered.map((x) => String(x.headers['webhook-id']));
  t.is(ids.length, 200, 'no event was delivered twice');
  t.is(new Set(ids).size, 200);
  t.deepEqual(delivered.map((x) => verify(secret, x).data.uuid).sort(), [...uuids].sort(), 'every roll, verified');
  // Each roll's seq, as Redis numbered its RollCreateEvent: one per roll, whichever instance made it.
  const seqs = delivered.map((x) => verify(secret, x).seq);
  t.true(
    seqs.every((seq) => typeof seq === 'number' && seq > 0),
    'every event carries its room seq',
  );
  t.is(new Set(seqs).size, 200, 'one seq per roll');
  // A webhook-id sent more than once: only after an attempt of it that failed.
  const byId = new Map<string, Received[]>();
  for (const r of receiver.at(path)) byId.set(String(r.headers['webhook-id']), [...(byId.get(String(r.headers['webhook-id'])) ?? []), r]);
  for (const [id, attempts] of byId) {
    const ok = attempts.filter((x) => x.answered === 200);
    t.is(ok.length, 1, id);
    t.true(
      attempts.slice(0, -1).every((x) => x.answered === 500),
      `${id}: repeats only after failures`,
    );
  }
  t.true(
    got.some((x) => x.answered === 500),
    'the receiver did fail for a while',
  );
});

test.serial("an instance killed (SIGKILL) right after its rolls' 201s: the other delivers them", async (t) => {
  const path = '/killed';
  const { owner, slug, secret } = await roomWithHook(path);
  // A slow receiver at first: an attempt the killed instance made is never answered to it.
  const slowUntil = performance.now() + 2000;
  receiver.answer(path, () => (performance.now() < slowUntil ? { status: 200, delayMs: 2500 } : { status: 200 }));
  const victim = await cluster.add();
  const uuids: string[] = [];
  const answers = await Promise.all(Array.from({ length: 10 }, () => owner.api.post(`${victim.url}/api/1.0/roll`, { dice: DICE, room: slug })));
  for (const res of answers) {
    t.is(res.status, 201);
    uuids.push(res.body.data.uuid);
  }
  await victim.stop('SIGKILL');
  cluster.instances.splice(cluster.instances.indexOf(victim), 1);
  await receiver.waitFor(
    path,
    (r) => new Set(r.filter((x) => x.answered === 200).map((x) => verify(secret, x).data.uuid)).size >= 10,
    "the killed instance's rolls, delivered by the other",
    30_000,
  );
  const delivered = new Set(
    receiver
      .at(path)
      .filter((x) => x.answered === 200)
      .map((x) => verify(secret, x).data.uuid),
  );
  t.deepEqual([...delivered].sort(), [...uuids].sort());
});

test.serial(
  "an instance killed (SIGKILL) right after its joins' 200s and a rename's: the other delivers those events (recorded in their transactions)",
  async (t) => {
    const path = '/killed-joins';
    const { owner, slug, secret, id } = await roomWithHook(path, ['participant.joined', 'room.updated']);
    // A slow receiver at first: an attempt the killed instance made is never answered to it.
    const slowUntil = performance.now() + 2000;
    receiver.answer(path, () => (performance.now() < slowUntil ? { status: 200, delayMs: 2500 } : { status: 200 }));
    const victim = await cluster.add();
    const guests = await Promise.all(Array.from({ length: 5 }, () => cluster.newUser(0)));
    const answers = await Promise.all([
      ...guests.map((g) => g.api.post(`${victim.url}/api/1.0/room/${slug}/participant`)),
      owner.api.patch(`${victim.url}/api/1.0/room/${slug}`, { name: 'Renamed before the crash' }),
    ]);
    for (const res of answers) t.is(res.status, 200);
    // Recorded before the answers, in the changes' transactions (not by a listener after them).
    const db = new pg.Client({ connectionString: cluster.database.databaseUrl! });
    await db.connect();
    const recorded = await db.query('SELECT COUNT(*)::int AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.uuid = $1', [id]);
    await db.end();
    await victim.stop('SIGKILL');
    t.is(recorded.rows[0].n, 11, 'every event was recorded when its change was answered');
    cluster.instances.splice(cluster.instances.indexOf(victim), 1);
    const joinedBy = (got: Received[]) =>
      new Set(
        got
          .filter((x) => x.answered === 200)
          .map((x) => verify(secret, x))
          .filter((b) => b.type === 'participant.joined')
          .map((b) => b.data.user?.uuid),
      );
    // Distinct ids: an attempt the killed instance made may also have been answered, a duplicate of the retry.
    const distinctUpdates = (r: Received[]) =>
      new Set(r.filter((x) => x.answered === 200 && verify(secret, x).type === 'room.updated').map((x) => String(x.headers['webhook-id']))).size;
    const got = await receiver.waitFor(
      path,
      (r) => joinedBy(r).size >= 5 && distinctUpdates(r) >= 6,
      "the killed instance's joins and rename, delivered by the other",
      30_000,
    );
    t.deepEqual([...joinedBy(got)].sort(), guests.map((g) => g.user.uuid).sort(), 'every join, verified');
    const ids = got.filter((x) => x.answered === 200).map((x) => String(x.headers['webhook-id']));
    t.is(new Set(ids).size, 11, 'five joins, their five room.updated and the rename: eleven events');
  },
);
