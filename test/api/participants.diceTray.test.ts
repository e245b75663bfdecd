import test from 'ava';
import { useServer } from '../helpers/server';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { closeAllPusher, connectPusher } from '../helpers/pusher';
import { table } from './rolls.support';

// `participant.dice_tray` (the dddice SDK's `{dieType, theme}[][]`): always present (GM's Grimoire walks
// it before it connects), set through PATCH /room/{slug}/participant/{id}, bounded like dice, and
// presented wherever a participant is.
const ctx = useServer(test);
const sockets: Client[] = [];
test.after.always(() => {
  closeAll(...sockets);
  closeAllPusher();
});

const TRAY = [
  [{ dieType: 'd20', theme: 'dddice-bees' }],
  [
    { dieType: 'd6', theme: 'standard' },
    { dieType: 'd6', theme: 'standard' },
    { dieType: 'd8', theme: 'dddice-red' },
  ],
];

test('every participant has a dice tray, [] until one is saved', async (t) => {
  const s = await table(ctx.server);
  const room = (await s.roller.api.get(`/room/${s.slug}`)).body.data;
  t.true(room.participants.length >= 3);
  for (const p of room.participants) t.deepEqual(p.dice_tray, []);
  // The GM's Grimoire walk: participant.dice_tray.forEach(...) must not throw.
  t.notThrows(() => room.participants.forEach((p: { dice_tray: unknown[][] }) => p.dice_tray.forEach((row) => row.forEach(() => undefined))));
});

test('PATCH saves the tray (extra fields dropped); it shows in GET /room, RoomUpdateEvent, Pusher presence, rolls; [] empties it', async (t) => {
  const s = await table(ctx.server);
  const id = s.participantId(s.whisperee);
  const socket = await connectWelcomed(ctx.server.url, s.slug, { token: s.roller.key }, sockets);
  const withExtra = TRAY.map((row) => row.map((die) => ({ ...die, junk: 'x' })));
  const res = await s.whisperee.api.patch(`/room/${s.slug}/participant/${id}`, { dice_tray: withExtra });
  t.is(res.status, 200, res.text);
  const mine = (room: { participants: Array<{ id: number; dice_tray: unknown }> }) => room.participants.find((p) => p.id === id)!.dice_tray;
  t.deepEqual(mine(res.body.data), TRAY);
  t.deepEqual(mine((await s.bystander.api.get(`/room/${s.slug}`)).body.data), TRAY, 'everyone in the room sees it');
  // Earlier RoomUpdateEvents (the joins, folded) may still arrive: wait for the one with the tray.
  const update = await socket.waitFor('RoomUpdateEvent', (p) => JSON.stringify(mine(p.data)) === JSON.stringify(TRAY));
  t.deepEqual(mine(update.data), TRAY);

  const pusher = await connectPusher(ctx.server.url, { key: s.whisperee.key });
  const presence = await pusher.subscribe(`presence-room.${s.slug}`);
  t.deepEqual((presence as any).members.me.info.dice_tray, TRAY, 'the presence member (the SDK onConnect list) carries it');
  pusher.close();

  const roll = (await s.roller.api.post('/roll', { equation: '1d6', theme: 'standard', room: s.slug, whisper: [id] })).body.data;
  t.deepEqual(roll.participants[0].dice_tray, TRAY);
  t.deepEqual(mine(roll.room), TRAY);

  // The owner may change it too; [] empties it.
  const emptied = await s.roller.api.patch(`/room/${s.slug}/participant/${id}`, { dice_tray: [] });
  t.is(emptied.status, 200);
  t.deepEqual(mine(emptied.body.data), []);
  // A stranger to the seat may not.
  t.is((await s.bystander.api.patch(`/room/${s.slug}/participant/${id}`, { dice_tray: TRAY })).status, 403);
});

test('a tray is validated like dice and bounded: rows, dice per row, bytes, die and theme ids', async (t) => {
  const s = await table(ctx.server);
  const id = s.participantId(s.whisperee);
  const patch = (dice_tray: unknown) => s.whisperee.api.patch(`/room/${s.slug}/participant/${id}`, { dice_tray });
  const die = { dieType: 'd6', theme: 'standard' };
  const cases: Array<[unknown, string]> = [
    ['d20', 'dice_tray'],
    [[die], 'dice_tray[0]'],
    [[[]], 'dice_tray[0]'],
    [[[{ dieType: 'd6' }]], 'dice_tray[0][0].theme'],
    [[[{ theme: 'standard' }]], 'dice_tray[0][0].dieType'],
    [[[{ dieType: 'd6', theme: 'Not A Theme' }]], 'dice_tray[0][0].theme'],
    [[[{ dieType: '', theme: 'standard' }]], 'dice_tray[0][0].dieType'],
    [[[{ dieType: 'd6"><script>', theme: 'standard' }]], 'dice_tray[0][0].dieType'],
    [Array.from({ length: 9 }, () => [die]), 'dice_tray'],
    [[Array.from({ length: 13 }, () => die)], 'dice_tray[0]'],
    [Array.from({ length: 8 }, () => Array.from({ length: 12 }, () => ({ dieType: 'd20', theme: 'a-rather-long-theme-id-of-someone' }))), 'dice_tray'],
  ];
  for (const [tray, path] of cases) {
    const res = await patch(tray);
    t.is(res.status, 400, `${JSON.stringify(tray).slice(0, 80)}: ${res.text}`);
    t.is(res.body.type, 'error');
    t.is(res.body.data.code, 'validation_error');
    t.true(
      res.body.data.details.some((d: { path: string }) => d.path === path),
      `${path} in ${JSON.stringify(res.body.data.details)}`,
    );
  }
  // The largest tray allowed is taken.
  const full = Array.from({ length: 8 }, () => Array.from({ length: 3 }, () => ({ dieType: 'd20', theme: 'dddice-bees' })));
  t.is((await patch(full)).status, 200);
  t.deepEqual((await s.roller.api.get(`/room/${s.slug}`)).body.data.participants.find((p: { id: number }) => p.id === id).dice_tray, full);
});
