import test from 'ava';
import { randomUUID } from 'node:crypto';
import { db } from '../../src/db';
import { sweepExpiredKeys } from '../../src/rolls/idempotency/store';
import { sdkRestClient } from '../helpers/sdkRest';
import { useServer } from '../helpers/server';
import { table } from './rolls.support';

/**
 * `external_id` is a label (D&D Beyond sends one per character on every roll, Foundry one per chat
 * message for its attack and its damage): every roll with it is rolled, and a room's history can be
 * filtered by it. Safe retries are the `Idempotency-Key` header's (docs/api/rolls.md).
 */

const ctx = useServer(test);

const d20 = { type: 'd20', theme: 'standard' };

test("D&D Beyond's external_id on every roll of a character, through the stock SDK: each roll is a new roll", async (t) => {
  const { roller, slug } = await table(ctx.server);
  const sdk = await sdkRestClient(ctx.server.url, roller.key, slug);
  const externalId = 'dndbCharacterId:123456';
  const first = await sdk.roll.create([d20, { type: 'mod', theme: 'standard', value: 5 }], { operator: {}, label: 'Perception', external_id: externalId });
  const second = await sdk.roll.create(
    [
      { type: 'd8', theme: 'standard' },
      { type: 'mod', theme: 'standard', value: 3 },
    ],
    { operator: {}, label: 'Longsword: Damage', external_id: externalId },
  );
  t.not(second.data.uuid, first.data.uuid, 'the second roll is rolled');
  t.is(second.data.external_id, externalId, 'echoed');
  t.is(second.data.label, 'Longsword: Damage');
  t.is(second.data.equation, '1d8+3');
  const history = (await roller.api.get(`/room/${slug}/roll`)).body.data as { uuid: string }[];
  t.deepEqual(
    history.map((r) => r.uuid),
    [second.data.uuid, first.data.uuid],
  );
});

test("Foundry's one external_id for a chat message's attack and damage (raw HTTP): two rolls, found by their external_id", async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const externalId = `foundryVTT:${randomUUID()}`;
  const attack = await roller.api.post('/roll', { dice: [d20, { type: 'mod', value: 7 }], room: slug, external_id: externalId, label: 'Attack' });
  const unrelated = await roller.api.post('/roll', { dice: [d20], room: slug, external_id: 'foundryVTT:another-message' });
  const damage = await roller.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug, external_id: externalId, label: 'Damage' });
  for (const res of [attack, unrelated, damage]) t.is(res.status, 201, res.text);
  t.not(damage.body.data.uuid, attack.body.data.uuid);

  // Any participant may filter the room's history by it; newest first, paged like the whole history.
  const page1 = await bystander.api.get(`/room/${slug}/roll?external_id=${encodeURIComponent(externalId)}&limit=1`);
  t.is(page1.status, 200);
  t.deepEqual(
    page1.body.data.map((r: { uuid: string }) => r.uuid),
    [damage.body.data.uuid],
  );
  t.true(new URL(page1.body.links.next).searchParams.get('external_id') === externalId, 'the next link keeps the filter');
  const page2 = await bystander.api.get(page1.body.links.next);
  t.deepEqual(
    page2.body.data.map((r: { uuid: string }) => r.uuid),
    [attack.body.data.uuid],
  );
  t.is(page2.body.links.next, null);
  const none = await bystander.api.get(`/room/${slug}/roll?external_id=nothing-labelled-so`);
  t.deepEqual(none.body.data, []);
  const bad = await bystander.api.get(`/room/${slug}/roll?external_id=${'x'.repeat(256)}`);
  t.is(bad.status, 400);
  t.is(bad.body.data.code, 'validation_error');
});

test('Idempotency-Key: the same key and body answer the first result again; another body is a 422; keys are per user', async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const key = randomUUID();
  const body = { dice: [d20, { type: 'mod', value: 2 }], room: slug, label: 'Initiative' };
  const first = await roller.api.post('/roll', body, { headers: { 'Idempotency-Key': `"${key}"` } });
  t.is(first.status, 201);
  t.is(first.headers.get('idempotent-replayed'), null);
  // The same request again, its keys in another order and an unknown field (dropped, as always): a retry.
  const retry = await roller.api.post('/roll', { label: 'Initiative', room: slug, dice: body.dice, extra: 1 }, { headers: { 'Idempotency-Key': key } });
  t.is(retry.status, 201, 'the first status');
  t.deepEqual(retry.body, first.body, 'the first body');
  t.is(retry.headers.get('idempotent-replayed'), 'true');
  const history = (await roller.api.get(`/room/${slug}/roll`)).body.data as unknown[];
  t.is(history.length, 1, 'rolled once');

  const other = await roller.api.post('/roll', { ...body, label: 'Something else' }, { headers: { 'Idempotency-Key': key } });
  t.is(other.status, 422);
  t.deepEqual(Object.keys(other.body), ['type', 'data']);
  t.is(other.body.type, 'error');
  t.is(other.body.data.code, 'idempotency_key_reused');
  t.is(typeof other.body.data.message, 'string');

  const theirs = await bystander.api.post('/roll', body, { headers: { 'Idempotency-Key': key } });
  t.is(theirs.status, 201, "another user's key of the same text is theirs");
  t.not(theirs.body.data.uuid, first.body.data.uuid);
  t.is(theirs.headers.get('idempotent-replayed'), null);
});

test('Idempotency-Key: a refused request takes no key; a malformed key is a 400', async (t) => {
  const { api } = await ctx.server.newUser();
  const key = randomUUID();
  const refused = await api.post('/roll', { dice: [{ type: 'd20', theme: 'no-such-theme' }] }, { headers: { 'Idempotency-Key': key } });
  t.is(refused.status, 422);
  t.is(refused.body.data.code, 'unknown_theme');
  const invalid = await api.post('/roll', { dice: [] }, { headers: { 'Idempotency-Key': key } });
  t.is(invalid.status, 400);
  const corrected = await api.post('/roll', { dice: [d20] }, { headers: { 'Idempotency-Key': key } });
  t.is(corrected.status, 201, 'the key was given back: the corrected request runs');
  t.is(corrected.headers.get('idempotent-replayed'), null);

  for (const bad of ['', '""', 'x'.repeat(256), 'naïve']) {
    const res = await api.post('/roll', { dice: [d20] }, { headers: { 'Idempotency-Key': bad } });
    t.is(res.status, 400, JSON.stringify(bad));
    t.is(res.body.data.code, 'validation_error');
    t.is(res.body.data.details[0].path, 'Idempotency-Key');
  }
});

test('Idempotency-Key: concurrent duplicates roll once; the others answer that roll or 409 while it is in flight', async (t) => {
  const { api } = await ctx.server.newUser();
  const key = randomUUID();
  const answers = await Promise.all(
    Array.from({ length: 6 }, () => api.post('/roll', { dice: [d20], label: 'race' }, { headers: { 'Idempotency-Key': key } })),
  );
  const statuses = answers.map((a) => a.status);
  t.true(
    answers.every((a) => a.status === 201 || (a.status === 409 && a.body.data.code === 'idempotency_key_in_flight')),
    statuses.join(','),
  );
  t.is(new Set(answers.filter((a) => a.status === 201).map((a) => a.body.data.uuid)).size, 1, 'one roll');
  t.is(answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null).length, 1, 'rolled by one request');
  const late = await api.post('/roll', { dice: [d20], label: 'race' }, { headers: { 'Idempotency-Key': key } });
  t.is(late.status, 201);
  t.is(late.headers.get('idempotent-replayed'), 'true');
});

test('Idempotency-Key: after 24 hours a key is free again, and expired keys are swept', async (t) => {
  const { api, user } = await ctx.server.newUser();
  const key = randomUUID();
  const first = await api.post('/roll', { dice: [d20] }, { headers: { 'Idempotency-Key': key } });
  t.is(first.status, 201);
  // As the clock would have it a day later.
  const past = new Date(Date.now() - 1000);
  await db().sql.transaction((q) => q('UPDATE idempotency_keys SET expires_at = $1 WHERE key = $2', [past, key]));
  const later = await api.post('/roll', { dice: [d20] }, { headers: { 'Idempotency-Key': key } });
  t.is(later.status, 201);
  t.is(later.headers.get('idempotent-replayed'), null, 'rolled anew');
  t.not(later.body.data.uuid, first.body.data.uuid);

  await db().sql.transaction((q) => q('UPDATE idempotency_keys SET expires_at = $1 WHERE key = $2', [past, key]));
  t.true((await sweepExpiredKeys(new Date(), 1000)) >= 1);
  const left = await db().sql.query('SELECT id FROM idempotency_keys WHERE key = $1', [key]);
  t.deepEqual(left, []);
  t.truthy(user.uuid);
});
