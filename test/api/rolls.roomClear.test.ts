import test from 'ava';
import { sdkRestClient } from '../helpers/sdkRest';
import { useServer } from '../helpers/server';
import { rollOk, table, type Roll } from './rolls.support';

/**
 * PATCH /room/{slug}/roll?participant=*: the Stream Deck plugin's "pick up all", sent by the stock SDK's
 * room.updateRolls(slug, {is_cleared: true}, '*'): the room's owner clears every participant's dice;
 * `?participant=<id>` one participant's. Anyone else: 403 (docs/api/rolls.md, "Changing dice").
 */

const ctx = useServer(test);

const d6 = { type: 'd6', theme: 'standard' };

/** Whether every die of the roll is cleared, as its roller reads it. */
async function cleared(user: { api: { get: (p: string) => Promise<{ body: { data: Roll } }> } }, roll: Roll): Promise<boolean[]> {
  return (await user.api.get(`/roll/${roll.uuid}`)).body.data.values.map((v) => v.is_cleared);
}

test("the owner's SDK room.updateRolls(slug, {is_cleared: true}, '*') clears every participant's dice; a participant's is a 403", async (t) => {
  const { roller: owner, whisperee, bystander, slug, participantId } = await table(ctx.server);
  const mine = await rollOk(owner, { dice: [d6, d6], room: slug });
  const theirs = await rollOk(bystander, { dice: [d6], room: slug });
  // A whisper between two participants, which the owner does not see: cleared too, and not in the owner's answer.
  const secret = await rollOk(whisperee, { dice: [d6], room: slug, whisper: [participantId(bystander)] });
  const elsewhere = await rollOk(owner, { dice: [d6] });

  const guestSdk = await sdkRestClient(ctx.server.url, bystander.key, slug);
  const refused = await guestSdk.room.updateRolls(slug, { is_cleared: true }, '*').then(
    () => null,
    (e: { response?: { status: number; data: { type: string; data: { code: string } } } }) => e.response,
  );
  t.is(refused?.status, 403);
  t.is(refused?.data.type, 'error');
  t.is(refused?.data.data.code, 'forbidden');
  t.deepEqual(await cleared(bystander, theirs), [false], 'nothing changed');

  const ownerSdk = await sdkRestClient(ctx.server.url, owner.key, slug);
  const answer = await ownerSdk.room.updateRolls(slug, { is_cleared: true }, '*');
  t.is(answer.type, 'roll[]');
  t.deepEqual(answer.data.map((r: Roll) => r.uuid).sort(), [mine.uuid, theirs.uuid].sort(), 'the changed rolls the owner may see');
  t.deepEqual(await cleared(owner, mine), [true, true]);
  t.deepEqual(await cleared(bystander, theirs), [true]);
  t.deepEqual(await cleared(whisperee, secret), [true]);
  t.deepEqual(await cleared(owner, elsewhere), [false], 'a roll outside the room is not touched');

  const again = await ownerSdk.room.updateRolls(slug, { is_cleared: true }, '*');
  t.deepEqual(again.data, [], 'nothing left to change');
});

test("?participant=<id> clears that participant's dice (the owner; a participant its own), raw HTTP as the SDK sends it", async (t) => {
  const { roller: owner, whisperee, bystander, slug, participantId } = await table(ctx.server);
  const ownerRoll = await rollOk(owner, { dice: [d6], room: slug });
  const bystanderRoll = await rollOk(bystander, { dice: [d6], room: slug });
  const whispereeRoll = await rollOk(whisperee, { dice: [d6], room: slug });

  const forbidden = await whisperee.api.patch(`/room/${slug}/roll?participant=${participantId(bystander)}`, { dice: { is_cleared: true } });
  t.is(forbidden.status, 403);
  t.is(forbidden.body.data.code, 'forbidden');

  const one = await owner.api.patch(`/room/${slug}/roll?participant=${participantId(bystander)}`, { dice: { is_cleared: true } });
  t.is(one.status, 200, one.text);
  t.deepEqual(
    one.body.data.map((r: Roll) => r.uuid),
    [bystanderRoll.uuid],
  );
  t.deepEqual(await cleared(bystander, bystanderRoll), [true]);
  t.deepEqual(await cleared(owner, ownerRoll), [false]);
  t.deepEqual(await cleared(whisperee, whispereeRoll), [false]);

  // One's own participant id is one's own dice, as without the parameter.
  const own = await whisperee.api.patch(`/room/${slug}/roll?participant=${participantId(whisperee)}`, { dice: { is_visible: false } });
  t.is(own.status, 200);
  t.deepEqual(
    own.body.data.map((r: Roll) => r.uuid),
    [whispereeRoll.uuid],
  );

  // Picking up is allowed on others' dice; hiding or revealing them is their roller's alone.
  const hide = await owner.api.patch(`/room/${slug}/roll?participant=*`, { dice: { is_hidden: false } });
  t.is(hide.status, 403);
  t.is(hide.body.data.code, 'forbidden');
  const mixed = await owner.api.patch(`/room/${slug}/roll?participant=${participantId(bystander)}`, { dice: { is_cleared: false, is_hidden: true } });
  t.is(mixed.status, 403);

  const unknown = await owner.api.patch(`/room/${slug}/roll?participant=999999`, { dice: { is_cleared: true } });
  t.is(unknown.status, 404);
  t.is(unknown.body.data.code, 'not_found');
  for (const bad of ['all', '0', '-1', '1.5', '']) {
    const res = await owner.api.patch(`/room/${slug}/roll?participant=${bad}`, { dice: { is_cleared: true } });
    t.is(res.status, 400, bad);
    t.is(res.body.data.code, 'validation_error');
    t.is(res.body.data.details[0].path, 'query.participant');
  }
  const noRoom = await owner.api.patch('/room/no-such-room/roll?participant=*', { dice: { is_cleared: true } });
  t.is(noRoom.status, 404);
});
