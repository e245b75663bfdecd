import test from 'ava';
import { useServer } from '../helpers/server';
import { outboxReleasesSettled } from '../../src/outbox/sweeper';
import { webhookRecordingsSettled } from '../../src/webhooks';
import { rollOk, table, type Roll } from './rolls.support';

const ctx = useServer(test);

/** Every place a rolled number can show: totals, equation, values and faces. */
const numbersShown = (r: Roll) => JSON.stringify([r.total_value, r.equation, r.values.map((v) => [v.value, v.value_to_display])]);

const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

test('a whispered roll is seen by its roller and the whispered participant only; the rest get 404', async (t) => {
  const { roller, whisperee, bystander, outsider, slug, participantId } = await table(ctx.server);
  const roll = await rollOk(roller, { dice: [d('d20')], room: slug, whisper: [participantId(whisperee)] });
  t.deepEqual(
    roll.participants.map((p) => p.user.uuid),
    [whisperee.user.uuid],
    'participants lists who it is whispered to',
  );
  t.is(roll.participants[0]!.id, participantId(whisperee));

  const forWhisperee = await whisperee.api.get(`/roll/${roll.uuid}`);
  t.is(forWhisperee.status, 200);
  t.deepEqual(forWhisperee.body.data.values, roll.values, 'the whispered participant sees the dice');
  t.is((await bystander.api.get(`/roll/${roll.uuid}`)).status, 404, 'a participant it is not whispered to: 404, not 403');
  t.is((await outsider.api.get(`/roll/${roll.uuid}`)).status, 404);

  const toSelf = await rollOk(roller, { dice: [d('d20')], room: slug, whisper: [participantId(roller)] });
  t.is((await whisperee.api.get(`/roll/${toSelf.uuid}`)).status, 404, 'a roll whispered to oneself is private');
  t.is((await roller.api.get(`/roll/${toSelf.uuid}`)).status, 200);
});

test('a hidden die shows null value and face to everyone but its roller; their total counts what they see', async (t) => {
  const { roller, bystander, whisperee, slug } = await table(ctx.server);
  const roll = await rollOk(roller, { dice: [d('d20', { value: 17, is_hidden: true }), d('d6', { value: 4 })], room: slug });
  t.is(roll.total_value, 21, 'the roller sees the whole total');
  t.is(roll.values[0]!.value, 17);
  t.is(roll.values[0]!.value_to_display, '17');

  for (const viewer of [bystander, whisperee]) {
    const seen = (await viewer.api.get(`/roll/${roll.uuid}`)).body.data as Roll;
    t.is(seen.values[0]!.value, null);
    t.is(seen.values[0]!.value_to_display, null);
    t.true(seen.values[0]!.is_hidden, 'they know a die is hidden');
    t.is(seen.values[0]!.type, 'd20', 'and what kind of die');
    t.is(seen.values[1]!.value, 4);
    t.is(seen.total_value, 4, 'only what they can see');
    t.is(seen.equation, '1d20+1d6', 'dice are written by kind, so the equation stays');
    t.false(numbersShown(seen).includes('17'), 'the hidden number is nowhere in what they get');
  }
  const own = (await roller.api.get(`/roll/${roll.uuid}`)).body.data as Roll;
  t.deepEqual(own, roll);
});

test('hidden modifiers leave the total and the equation of other viewers', async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const roll = await rollOk(roller, { dice: [d('d20', { value: 10 }), { type: 'mod', value: 7, is_hidden: true }, { type: 'mod', value: -2 }], room: slug });
  t.is(roll.equation, '1d20+7-2');
  t.is(roll.total_value, 15);
  const seen = (await bystander.api.get(`/roll/${roll.uuid}`)).body.data as Roll;
  t.is(seen.equation, '1d20-2');
  t.is(seen.total_value, 8);
  t.is(seen.values[1]!.value, null);
  t.false(numbersShown(seen).includes('7'), `the modifier is nowhere: ${numbersShown(seen)}`);

  const onlyMods = await rollOk(roller, {
    dice: [
      { type: 'mod', value: 3, is_hidden: true },
      { type: 'mod', value: 5 },
    ],
    room: slug,
  });
  t.is(onlyMods.equation, '3+5');
  t.is(((await bystander.api.get(`/roll/${onlyMods.uuid}`)).body.data as Roll).equation, '5');
  const allHidden = await rollOk(roller, { dice: [{ type: 'mod', value: 3, is_hidden: true }], room: slug });
  t.is(((await bystander.api.get(`/roll/${allHidden.uuid}`)).body.data as Roll).equation, '0');

  const scaled = await rollOk(roller, {
    dice: [d('d6', { value: 5 }), d('d6', { value: 4, is_hidden: true }), { type: 'mod', value: 2, is_hidden: true }],
    operator: { '*': 3, '/': 2, round: 'up' },
    room: slug,
  });
  t.is(scaled.equation, 'ceil((2d6+2)*3/2)');
  t.is(scaled.total_value, 17, 'ceil(11 * 3 / 2)');
  const scaledSeen = (await bystander.api.get(`/roll/${scaled.uuid}`)).body.data as Roll;
  t.is(scaledSeen.equation, 'ceil((2d6)*3/2)');
  t.is(scaledSeen.total_value, 8, 'ceil(5 * 3 / 2): the operators apply to the visible total too');
});

test('dropped dice and hidden dice together: the visible total keeps the drops', async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const roll = await rollOk(roller, {
    dice: [d('d20', { value: 3 }), d('d20', { value: 18, is_hidden: true }), d('d20', { value: 11 })],
    operator: { k: 'h2' },
    room: slug,
  });
  t.is(roll.total_value, 29);
  const seen = (await bystander.api.get(`/roll/${roll.uuid}`)).body.data as Roll;
  t.deepEqual(
    seen.values.map((v) => v.is_dropped),
    [true, false, false],
  );
  t.is(seen.total_value, 11, 'the dropped 3 still counts nothing, the hidden 18 is not seen');
});

test('the room history: newest first, cursor-paged with links.next, whispers for others absent', async (t) => {
  const { roller, whisperee, bystander, outsider, slug, participantId } = await table(ctx.server);
  const made: { uuid: string; whispered: boolean }[] = [];
  for (let i = 0; i < 12; i++) {
    const whispered = i % 3 === 0;
    const roll = await rollOk(roller, { dice: [d('d6')], room: slug, label: `r${i}`, ...(whispered ? { whisper: [participantId(whisperee)] } : {}) });
    made.push({ uuid: roll.uuid, whispered });
  }
  const byBystander = await rollOk(bystander, { dice: [d('d4')], room: slug });
  made.push({ uuid: byBystander.uuid, whispered: false });
  const newestFirst = [...made].reverse();

  const walk = async (api: typeof roller.api, limit: number) => {
    const pages: string[][] = [];
    let url: string | null = `/room/${slug}/roll?limit=${limit}`;
    while (url) {
      const res: { status: number; text: string; body: any } = await api.get(url);
      t.is(res.status, 200, res.text);
      t.is(res.body.type, 'roll[]');
      pages.push(res.body.data.map((r: Roll) => r.uuid));
      url = res.body.links.next;
      if (url) t.regex(url, /^http:\/\/[^/]+\/api\/1\.0\/room\/[\w-]+\/roll\?limit=\d+&before=[0-9a-f-]{36}$/);
      if (pages.length > 20) throw new Error('links.next never ended');
    }
    return pages;
  };

  const mine = await walk(roller.api, 5);
  t.deepEqual(
    mine.flat(),
    newestFirst.map((r) => r.uuid),
    'the roller sees everything',
  );
  t.deepEqual(
    mine.map((p) => p.length),
    [5, 5, 3],
  );

  const theirs = await walk(bystander.api, 4);
  t.deepEqual(
    theirs.flat(),
    newestFirst.filter((r) => !r.whispered).map((r) => r.uuid),
    'whispers for others are absent',
  );
  t.deepEqual(
    theirs.map((p) => p.length),
    [4, 4, 1],
    'pages are full: the filter runs before paging',
  );

  const whispered = await walk(whisperee.api, 100);
  t.deepEqual(
    whispered.flat(),
    newestFirst.map((r) => r.uuid),
    'the whispered participant sees the whispers',
  );

  const defaults = await bystander.api.get(`/room/${slug}/roll`);
  t.is(defaults.body.meta.per_page, 20);
  t.is(defaults.body.links.next, null);
  t.is(defaults.body.data.length, 9);

  t.is((await outsider.api.get(`/room/${slug}/roll`)).status, 403, "only participants read a room's rolls");
  t.is((await roller.api.get('/room/no-such-room-x/roll')).status, 404);
  const bad = await roller.api.get(`/room/${slug}/roll?limit=101&before=nope`);
  t.is(bad.status, 400);
  t.deepEqual(bad.body.data.details.map((x: { path: string }) => x.path).sort(), ['query.before', 'query.limit']);
  const stale = await roller.api.get(`/room/${slug}/roll?before=6f1c1f0e-1111-4222-8333-444455556666`);
  t.is(stale.status, 200);
  t.deepEqual(stale.body.data, [], 'a cursor that is not a roll of this room has nothing after it');
});

test('the history presents each roll per viewer: hidden dice stay hidden there too', async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const roll = await rollOk(roller, { dice: [d('d20', { value: 19, is_hidden: true })], room: slug });
  const [seen] = (await bystander.api.get(`/room/${slug}/roll`)).body.data as Roll[];
  t.is(seen!.uuid, roll.uuid);
  t.is(seen!.values[0]!.value, null);
  t.is(seen!.total_value, 0);
  const [own] = (await roller.api.get(`/room/${slug}/roll`)).body.data as Roll[];
  t.is(own!.values[0]!.value, 19);
});

test("a participant who leaves loses sight of the room's rolls, whispered or not", async (t) => {
  const { roller, whisperee, slug, participantId } = await table(ctx.server);
  const open = await rollOk(roller, { dice: [d('d6')], room: slug });
  const whisper = await rollOk(roller, { dice: [d('d6')], room: slug, whisper: [participantId(whisperee)] });
  t.is((await whisperee.api.get(`/roll/${whisper.uuid}`)).status, 200);
  const left = await whisperee.api.delete(`/room/${slug}/participant/${participantId(whisperee)}`);
  t.is(left.status, 204);
  t.is((await whisperee.api.get(`/roll/${open.uuid}`)).status, 404);
  t.is((await whisperee.api.get(`/roll/${whisper.uuid}`)).status, 404);
  t.is((await roller.api.get(`/roll/${whisper.uuid}`)).status, 200, 'the roller keeps it');
});

/** SQL statements the server runs while `fn` runs (serial tests only: nothing else runs meanwhile). */
async function countQueries(fn: () => Promise<unknown>): Promise<number> {
  const { db } = await import('../../src/db');
  const options = (db().sequelize as unknown as { options: { logging: unknown } }).options;
  let n = 0;
  const before = options.logging;
  // The realtime fan-out reads the database after each committed change: let what earlier requests
  // set off finish first, and count what this one sets off too, so the count does not depend on timing.
  await ctx.server.realtime.fanout.drain();
  await outboxReleasesSettled();
  // Committed events are recorded for webhooks after the answer too (a room's joins, here).
  await webhookRecordingsSettled();
  options.logging = () => {
    n += 1;
  };
  try {
    await fn();
    // The drain includes the release of the roll's outbox row, which is counted too.
    await ctx.server.realtime.fanout.drain();
    await outboxReleasesSettled();
    await webhookRecordingsSettled();
  } finally {
    options.logging = before;
  }
  return n;
}

test.serial('no N+1: a roll of 100 dice costs the queries of a roll of one; a page of 50 rolls those of a page of 1', async (t) => {
  const { roller, whisperee, slug, participantId } = await table(ctx.server);
  // The room's first roll creates its fairness ledger and first batches (docs/fairness.md): not counted.
  await rollOk(roller, { dice: [d('d6')], room: slug });
  const one = await countQueries(() => rollOk(roller, { dice: [d('d6')], room: slug, whisper: [participantId(whisperee)] }));
  const hundred = await countQueries(() =>
    rollOk(roller, { dice: Array.from({ length: 100 }, () => d('d6')), room: slug, whisper: [participantId(whisperee)] }),
  );
  t.is(hundred, one, 'values and whispers are inserted in bulk');
  for (let i = 0; i < 50; i++) await rollOk(roller, { dice: [d('d6'), d('d8')], room: slug, ...(i % 2 ? { whisper: [participantId(whisperee)] } : {}) });
  const small = await countQueries(() => roller.api.get(`/room/${slug}/roll?limit=1`));
  const large = await countQueries(() => roller.api.get(`/room/${slug}/roll?limit=50`));
  t.is(large, small, 'the history loads each relation in one batch');
});
