import test from 'ava';
import { useServer } from '../helpers/server';
import { userWithRoom } from '../rooms/support';
import { createRegisteredUser } from '../../src/users/create';
import { AppError } from '../../src/errors';

/**
 * Participant names must not impersonate (the owner's exact name), be invisible (\u200b), carry
 * bidirectional overrides (\u202e) or full-width look-alikes. Names are normalized
 * (NFKC), refused with invisible, control or text-direction characters, and unique in a room
 * (case-insensitively after normalization): 409 name_taken (docs/api/rooms.md).
 */
const ctx = useServer(test);

type P = { id: number; username: string; user: { uuid: string } };

async function roomWithMember() {
  const { owner, slug, room } = await userWithRoom(ctx.server, { name: 'Names' });
  const member = await ctx.server.newUser();
  const joined = (await member.api.post(`/room/${slug}/participant`)).body.data;
  const seat = (uuid: string) => (joined.participants as P[]).find((p) => p.user.uuid === uuid)!;
  return { owner, member, slug, ownerSeat: seat(owner.user.uuid), memberSeat: seat(member.user.uuid), ownerName: room.participants[0].username as string };
}

test("taking the owner's name is a 409 name_taken, in any case or width, and the name does not change", async (t) => {
  const { member, slug, memberSeat, ownerName } = await roomWithMember();
  const fullWidth = [...ownerName].map((c) => (c === ' ' ? '\u3000' : c >= '!' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');
  for (const name of [ownerName, ownerName.toUpperCase(), ownerName.toLowerCase(), ` ${ownerName}\uFE0F `, fullWidth]) {
    const res = await member.api.patch(`/room/${slug}/participant/${memberSeat.id}`, { username: name });
    t.is(res.status, 409, `${JSON.stringify(name)}: ${res.text}`);
    t.is(res.body.data.code, 'name_taken');
  }
  const room = (await member.api.get(`/room/${slug}`)).body.data;
  t.is((room.participants as P[]).find((p) => p.id === memberSeat.id)!.username, memberSeat.username, 'unchanged');
});

test('invisible, control and bidirectional characters are a 400 on username; nothing is stored', async (t) => {
  const { member, slug, memberSeat } = await roomWithMember();
  for (const name of ['\u200b', '\u200b\u200b', 'Owner\u200b', '\u202eevil', 'a\u2066b', '\u200fGM', 'x\u0007', '\u3164', '\u0301']) {
    const res = await member.api.patch(`/room/${slug}/participant/${memberSeat.id}`, { username: name });
    t.is(res.status, 400, `${JSON.stringify(name)}: ${res.text}`);
    t.is(res.body.data.code, 'validation_error');
    t.deepEqual(
      res.body.data.details.map((d: { path: string }) => d.path),
      ['username'],
    );
  }
  const room = (await member.api.get(`/room/${slug}`)).body.data;
  t.is((room.participants as P[]).find((p) => p.id === memberSeat.id)!.username, memberSeat.username);
});

test('names are stored normalized: full-width letters, odd spaces; a participant may change the case of its own name', async (t) => {
  const { member, slug, memberSeat } = await roomWithMember();
  const wide = await member.api.patch(`/room/${slug}/participant/${memberSeat.id}`, { username: '  Ｂａｒｄ\u00a0\u00a0the  Ｂｏｌｄ ' });
  t.is(wide.status, 200, wide.text);
  t.is((wide.body.data.participants as P[]).find((p) => p.id === memberSeat.id)!.username, 'Bard the Bold');
  const recased = await member.api.patch(`/room/${slug}/participant/${memberSeat.id}`, { username: 'BARD THE BOLD' });
  t.is(recased.status, 200, 'its own name is not "another participant\'s"');
  t.is((recased.body.data.participants as P[]).find((p) => p.id === memberSeat.id)!.username, 'BARD THE BOLD');
});

test('a name that NFKC makes longer than 64 characters is a 400, on PostgreSQL as on SQLite (the column holds 64)', async (t) => {
  const { member, slug, memberSeat } = await roomWithMember();
  const res = await member.api.patch(`/room/${slug}/participant/${memberSeat.id}`, { username: '\uFDFA'.repeat(4) });
  t.is(res.status, 400, res.text);
  t.regex(res.body.data.details[0].message, /at most 64 characters long once normalized/);
});

test("the owner cannot give a participant another participant's name either", async (t) => {
  const { owner, slug, memberSeat, ownerName } = await roomWithMember();
  const res = await owner.api.patch(`/room/${slug}/participant/${memberSeat.id}`, { username: ownerName });
  t.is(res.status, 409);
  t.is(res.body.data.code, 'name_taken');
});

test('joining under a name already in the room gives the newcomer "name (2)" instead', async (t) => {
  const { owner, slug, room } = await userWithRoom(ctx.server);
  const newcomer = await ctx.server.newUser();
  // the owner takes the newcomer's name before it joins
  t.is((await owner.api.patch(`/room/${slug}/participant/${room.participants[0].id}`, { username: newcomer.user.name })).status, 200);
  const joined = (await newcomer.api.post(`/room/${slug}/participant`)).body.data;
  const names = (joined.participants as P[]).map((p) => p.username);
  t.deepEqual(names, [newcomer.user.name, `${newcomer.user.name} (2)`]);
});

test('a name that only looks like one in the room (letters from another script) is taken too', async (t) => {
  const { member, slug, memberSeat, ownerName } = await roomWithMember();
  // The owner is a guest ("Guest D92B"): the same name with a Cyrillic Komi Sje for G, a Cyrillic Ie for e, an Armenian Seh for u, a Cherokee Nah for G.
  const disguises = [ownerName.replace('G', '\u050C'), ownerName.replace('e', '\u0435'), ownerName.replace('u', '\u057D'), ownerName.replace('G', '\u13C0')];
  for (const name of disguises) {
    t.not(name, ownerName);
    const res = await member.api.patch(`/room/${slug}/participant/${memberSeat.id}`, { username: name });
    t.is(res.status, 409, `${JSON.stringify(name)}: ${res.text}`);
    t.is(res.body.data.code, 'name_taken');
  }
  // A newcomer whose own name is a look-alike of a participant's joins as "name (2)".
  const { owner, slug: slug2, room } = await userWithRoom(ctx.server);
  const newcomer = await ctx.server.newUser();
  const disguised = newcomer.user.name.replace('G', '\u050C');
  t.is((await owner.api.patch(`/room/${slug2}/participant/${room.participants[0].id}`, { username: disguised })).status, 200);
  const joined = (await newcomer.api.post(`/room/${slug2}/participant`)).body.data;
  t.deepEqual(
    (joined.participants as P[]).map((p) => p.username),
    [disguised, `${newcomer.user.name} (2)`],
  );
});

test('two participants renaming to the same free name at once: one 200, one 409', async (t) => {
  const { slug, room, owner } = await userWithRoom(ctx.server);
  const users = [await ctx.server.newUser(), await ctx.server.newUser()];
  for (const u of users) t.is((await u.api.post(`/room/${slug}/participant`)).status, 200);
  const seats = ((await owner.api.get(`/room/${slug}`)).body.data.participants as P[]).filter((p) => p.id !== room.participants[0].id);
  for (let round = 0; round < 5; round++) {
    const name = `Twin ${round}`;
    const answers = await Promise.all(
      users.map((u) => u.api.patch(`/room/${slug}/participant/${seats.find((s) => s.user.uuid === u.user.uuid)!.id}`, { username: name })),
    );
    t.deepEqual(answers.map((a) => a.status).sort(), [200, 409], `round ${round}`);
  }
  const names = ((await owner.api.get(`/room/${slug}`)).body.data.participants as P[]).map((p) => p.username.toLowerCase());
  t.is(new Set(names).size, names.length, 'no two participants share a name');
});

test("user names from the operators' CLI are normalized and checked the same way", async (t) => {
  const user = await createRegisteredUser(`cli-${Date.now()}`, '  Ｇａｍｅ  Ｍａｓｔｅｒ ');
  t.is(user.name, 'Game Master');
  for (const name of ['\u202eevil', '\u200b', 'x'.repeat(256)]) {
    const error = await t.throwsAsync(createRegisteredUser(`cli-bad-${Date.now()}`, name), { instanceOf: AppError });
    t.is(error!.status, 400);
  }
});
