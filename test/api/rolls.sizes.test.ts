import test from 'ava';
import { MAX_CARRIED_BYTES, MAX_OPERATOR_BYTES } from '../../src/rolls/limits';
import { openApiDocument } from '../../src/openapi';
import { webp } from '../fixtures/assets';
import { manifest, postTheme } from '../fixtures/themes';
import { useServer } from '../helpers/server';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';

/**
 * What a roll stores of its caller's data is bounded, and so is what each member of its room receives
 * with the roll (docs/api/rolls.md, "Size limits"). Each refused request here was stored and fanned out
 * in full before the bounds existed.
 */

const ctx = useServer(test);
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

const refusedAt = (t: any, res: { status: number; body: any; text: string }, path: string) => {
  t.is(res.status, 400, res.text.slice(0, 300));
  t.is(res.body?.data?.code, 'validation_error');
  t.true(
    (res.body?.data?.details ?? []).some((d: { path: string }) => d.path === path),
    res.text.slice(0, 300),
  );
};

test('an operator of 180 KB of reroll selectors is refused at operator, not stored as a 380 KB roll', async (t) => {
  const { api } = await ctx.server.newUser();
  const selectors = Array.from({ length: 20_000 }, (_, i) => `>${1_000_000 + i}`).join(',');
  const res = await api.post('/roll', { dice: [{ type: 'd6' }, { type: 'd6' }], operator: { rr: { [selectors]: [0] } } });
  refusedAt(t, res, 'operator');
  t.regex(res.body.data.message, new RegExp(`${MAX_OPERATOR_BYTES} bytes`));
});

test('labels and meta over the budget: 100 dice with 2 KB of meta each are refused at dice', async (t) => {
  const { api } = await ctx.server.newUser();
  const res = await api.post('/roll', { dice: Array.from({ length: 100 }, () => ({ type: 'd20', meta: 'm'.repeat(2040), label: 'l'.repeat(255) })) });
  refusedAt(t, res, 'dice');
});

test("explosions copy a die's meta into every value they add: a roll whose values would carry more than the budget is refused", async (t) => {
  const { api } = await ctx.server.newUser();
  // 40 dice of 398 bytes of meta fit the budget (15,920 + quotes); a single explosion (each d2 explodes
  // on a 2: all 40 stay quiet once in 2^40 rolls) takes the values over it.
  const dice = Array.from({ length: 40 }, () => ({ type: 'd2', meta: 'm'.repeat(398) }));
  const res = await api.post('/roll', { dice, operator: { e: '2' } });
  refusedAt(t, res, 'dice');
  t.regex(res.body.data.message, new RegExp(`at most ${MAX_CARRIED_BYTES}`));
});

test('a face object of 2 KB is refused in a roll request and in a theme manifest (each rolled value carries its face)', async (t) => {
  const { api } = await ctx.server.newUser();
  const roll = await api.post('/roll', { dice: [{ type: 'd6', value_to_display: { src: 'a.png', note: 'x'.repeat(2000) } }] });
  refusedAt(t, roll, 'dice[0].value_to_display');
  const theme = await postTheme(
    api,
    manifest({
      available_dice: [{ id: 'df', type: 'd6', notation: 'dF' }],
      values: { df: [-1, -1, 0, 0, 1, { src: 'plus.webp', note: 'x'.repeat(2000) }] },
    }),
    [{ name: 'plus.webp', data: webp() }],
  );
  t.is(theme.status, 400, theme.text.slice(0, 300));
  t.true(theme.text.includes('values.df[5]'), theme.text.slice(0, 300));
});

test('the largest rolls integrations send still go through, and a member receives the roll at about its stored size', async (t) => {
  const owner = await ctx.server.newUser();
  const member = await ctx.server.newUser();
  const room = await owner.api.post('/room', { name: 'sizes' });
  const slug = room.body.data.slug;
  t.is((await member.api.post(`/room/${slug}/participant`, {})).status, 200);
  const watching = await connectWelcomed(ctx.server.url, slug, { token: member.key }, clients);
  // 100 dice with a label and a little meta each, keep/drop over every die, a roll group of all of them.
  const all = Array.from({ length: 100 }, (_, i) => i);
  const body = {
    dice: all.map((i) => ({ type: 'd6', label: `Attack ${i}`, meta: { position: { x: i, z: -i }, source: 'integration' } })),
    operator: { k: { h25: all.slice(0, 50), h20: all.slice(50) }, groups: [{ parts: [all.slice(0, 50), all.slice(50)], k: 'h1' }] },
    label: 'l'.repeat(255),
    external_id: 'e'.repeat(255),
    room: slug,
  };
  const res = await owner.api.post('/roll', body);
  t.is(res.status, 201, res.text.slice(0, 300));
  const event = await watching.waitFor('RollCreateEvent', (p) => p.data.uuid === res.body.data.uuid);
  const stored = (await owner.api.get(`/roll/${res.body.data.uuid}`)).text.length;
  const received = JSON.stringify(event).length;
  t.log(`stored roll ${stored} bytes as JSON, received by a member ${received} bytes`);
  t.true(received < 2 * stored);
});

test('the OpenAPI document states the bounds', (t) => {
  const schemas = openApiDocument().components.schemas as Record<string, any>;
  t.regex(schemas.Operator.description, new RegExp(`${MAX_OPERATOR_BYTES} bytes`));
  t.regex(schemas.DieInput.properties.meta.description, /2048 bytes/);
  const createBody = JSON.stringify(openApiDocument().paths['/api/1.0/roll']);
  t.true(createBody.includes(`${MAX_CARRIED_BYTES} bytes`));
});
