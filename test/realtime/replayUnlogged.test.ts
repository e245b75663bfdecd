import test from 'ava';
import { randomUUID } from 'node:crypto';
import { useServer } from '../helpers/server';
import { Client, closeAll, connectWelcomed } from '../helpers/sockets';
import { rollOk, table } from '../api/rolls.support';
import { db } from '../../src/db';
import { insertRoll } from '../../src/rolls/store/write';

/**
 * A reconnect with both `since_seq` and `since`: the log's replay, then the stored rolls the log lacks
 * (the database is the truth for rolls), each once. A roll stored but never published (its instance
 * died between its commit and its publish, or Redis lost its block) is made here as exactly that: a
 * row written by the rolls store, with no event.
 */
const ctx = useServer(test);
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));
const d6 = { type: 'd6', theme: 'standard' };

async function storeUnpublished(slug: string, userUuid: string): Promise<string> {
  const [room] = await db().sql.query<{ id: unknown }>('SELECT id FROM rooms WHERE slug = $1', [slug]);
  const [user] = await db().sql.query<{ id: unknown }>('SELECT id FROM users WHERE uuid = $1', [userUuid]);
  const now = new Date();
  const uuid = randomUUID();
  await insertRoll(
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
  );
  return uuid;
}

test("since_seq and since together: the log's events, then the stored rolls it lacks, each once", async (t) => {
  const s = await table(ctx.server);
  const watcher = await connectWelcomed(ctx.server.url, s.slug, { token: s.bystander.key }, clients);
  const seen = await rollOk(s.roller, { dice: [d6], room: s.slug });
  await watcher.waitFor('RollCreateEvent', (p) => p.data.uuid === seen.uuid);
  const sinceSeq = watcher.of('RollCreateEvent').at(-1).seq as number;
  watcher.close();

  const logged = await rollOk(s.roller, { dice: [d6], room: s.slug });
  const unpublished = await storeUnpublished(s.slug, s.roller.user.uuid);
  const later = await rollOk(s.roller, { dice: [d6], room: s.slug });

  const back = await connectWelcomed(ctx.server.url, s.slug, { token: s.bystander.key, since_seq: sinceSeq, since: seen.uuid }, clients);
  await back.waitFor('RollCreateEvent', (p) => p.data.uuid === unpublished);
  const another = await rollOk(s.roller, { dice: [d6], room: s.slug });
  await back.waitFor('RollCreateEvent', (p) => p.data.uuid === another.uuid);
  const uuids = back.of('RollCreateEvent').map((p) => p.data.uuid as string);
  t.deepEqual(
    uuids,
    [logged.uuid, later.uuid, unpublished, another.uuid],
    "the log's rolls in seq order, then the one it lacks, then live; none twice, the one seen before not again",
  );
});

test('since_seq alone replays only the log (a client that gives no since asks for nothing from the database)', async (t) => {
  const s = await table(ctx.server);
  const watcher = await connectWelcomed(ctx.server.url, s.slug, { token: s.bystander.key }, clients);
  const seen = await rollOk(s.roller, { dice: [d6], room: s.slug });
  await watcher.waitFor('RollCreateEvent', (p) => p.data.uuid === seen.uuid);
  const sinceSeq = watcher.of('RollCreateEvent').at(-1).seq as number;
  watcher.close();
  await storeUnpublished(s.slug, s.roller.user.uuid);
  const logged = await rollOk(s.roller, { dice: [d6], room: s.slug });
  const back = await connectWelcomed(ctx.server.url, s.slug, { token: s.bystander.key, since_seq: sinceSeq }, clients);
  await back.waitFor('RollCreateEvent', (p) => p.data.uuid === logged.uuid);
  const another = await rollOk(s.roller, { dice: [d6], room: s.slug });
  await back.waitFor('RollCreateEvent', (p) => p.data.uuid === another.uuid);
  t.deepEqual(
    back.of('RollCreateEvent').map((p) => p.data.uuid),
    [logged.uuid, another.uuid],
  );
});
