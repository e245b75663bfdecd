import test from 'ava';
import { randomUUID } from 'node:crypto';
import { useServer } from '../helpers/server';
import { Client, closeAll, connectWelcomed } from '../helpers/sockets';
import { rollOk, table } from '../api/rolls.support';
import { db } from '../../src/db';
import { insertRoll } from '../../src/rolls/store/write';

/**
 * The outbox (src/outbox): a roll made in a room is written with a row that goes once its event is
 * published; a row left behind (its instance died between the commit and the publish) is published by
 * the sweep after the grace. A short grace and sweep here.
 */
const ctx = useServer(test, { OUTBOX_GRACE_MS: '300', OUTBOX_SWEEP_MS: '100' });
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));
const d6 = { type: 'd6', theme: 'standard' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const outboxRows = async () => Number((await db().sql.query<{ n: unknown }>('SELECT count(*) AS n FROM outbox'))[0]!.n);

test.serial('a roll published live leaves no outbox row, and is not published again by the sweep', async (t) => {
  const s = await table(ctx.server);
  const watcher = await connectWelcomed(ctx.server.url, s.slug, { token: s.bystander.key }, clients);
  const roll = await rollOk(s.roller, { dice: [d6], room: s.slug });
  await watcher.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.uuid);
  for (let i = 0; i < 50 && (await outboxRows()) > 0; i++) await sleep(20);
  t.is(await outboxRows(), 0, 'its row is deleted once published');
  await sleep(600); // past the grace and several sweeps
  t.is(watcher.of('RollCreateEvent').filter((p) => p.data.uuid === roll.uuid).length, 1, 'once');
});

test.serial('a roll committed with its outbox row and never published (its instance died) is published by the sweep, once', async (t) => {
  const s = await table(ctx.server);
  const watcher = await connectWelcomed(ctx.server.url, s.slug, { token: s.bystander.key }, clients);
  const [room] = await db().sql.query<{ id: unknown }>('SELECT id FROM rooms WHERE slug = $1', [s.slug]);
  const [user] = await db().sql.query<{ id: unknown }>('SELECT id FROM users WHERE uuid = $1', [s.roller.user.uuid]);
  const now = new Date();
  const uuid = randomUUID();
  // What POST /roll writes (the roll and its outbox row, one transaction), without what follows it.
  const { outboxId } = await insertRoll(
    {
      id: 0,
      uuid,
      userId: Number(user!.id),
      roomId: Number(room!.id),
      direction: 0,
      velocity: 0,
      equation: '1d6',
      totalValue: 0,
      operator: null,
      label: null,
      externalId: null,
      isWhispered: false,
      createdAt: now,
      updatedAt: now,
    },
    [],
    [],
    { slug: s.slug },
  );
  t.true(Number.isSafeInteger(outboxId));
  await watcher.waitFor('RollCreateEvent', (p) => p.data.uuid === uuid, 10_000);
  for (let i = 0; i < 50 && (await outboxRows()) > 0; i++) await sleep(20);
  t.is(await outboxRows(), 0, 'its row is deleted once published');
  await sleep(600);
  t.is(watcher.of('RollCreateEvent').filter((p) => p.data.uuid === uuid).length, 1, 'once');
});
