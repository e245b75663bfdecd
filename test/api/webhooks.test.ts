import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { useServer } from '../helpers/server';
import { WebhookReceiver, type Received } from '../helpers/webhookReceiver';
import { table, rollOk, type NewUser } from './rolls.support';
import { isForbiddenAddress, resolveTarget, checkUrlShape, RefusedUrlError } from '../../src/webhooks/ssrf';
import { loadConfig } from '../../src/config';

// The receiver is on 127.0.0.1: allowed by the operator's list, as a self-hosted install would allow
// its LAN receiver. Everything else keeps the SSRF rule (https, no private addresses).
const ctx = useServer(test, {
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
  WEBHOOK_POLL_MS: '50',
  WEBHOOKS_PER_USER: '4',
});
const receiver = new WebhookReceiver();
test.before(async () => {
  await receiver.start();
});
test.after.always(async () => {
  await receiver.stop();
});

const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });
const WHSEC = /^whsec_[A-Za-z0-9+/]{32}$/;
let paths = 0;
/** A path of the receiver of its own for each webhook. */
const path = (name: string) => `/${name}-${++paths}`;

async function hook(user: NewUser, body: Record<string, unknown>) {
  const res = await user.api.post('/webhook', body);
  if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${res.text}`);
  return res.body.data as { id: string; secret: string; url: string; is_active: boolean; visibility: string; format: string };
}

/** Verify a delivery as a receiver would, with the standardwebhooks package; answers the parsed body. */
function verified(secret: string, got: Received): any {
  return new Webhook(secret).verify(got.body, {
    'webhook-id': String(got.headers['webhook-id']),
    'webhook-timestamp': String(got.headers['webhook-timestamp']),
    'webhook-signature': String(got.headers['webhook-signature']),
  });
}

async function deliveries(user: NewUser, id: string) {
  const res = await user.api.get(`/webhook/${id}/delivery`);
  if (res.status !== 200) throw new Error(`delivery log: ${res.status} ${res.text}`);
  return res.body.data as {
    id: string;
    event_type: string;
    status: string;
    attempts: number;
    last_status_code: number | null;
    error: string | null;
    response: string | null;
  }[];
}

/** Asks `read` until `check` accepts its answer (the server's own account: the log, the webhook). */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 200; i++) {
    last = await read();
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
}

const logUntil = (user: NewUser, id: string, check: (log: Awaited<ReturnType<typeof deliveries>>) => boolean, what: string) =>
  until(() => deliveries(user, id), check, what);

test('the API: create (secret once), list, get, patch, delete; only its owner sees a webhook; bad input is a 400 naming the rule', async (t) => {
  const { roller, bystander, outsider, slug } = await table(ctx.server);
  const url = receiver.url + path('api');
  const created = await roller.api.post('/webhook', { url, events: ['roll.created', 'room.updated'], room: slug });
  t.is(created.status, 201);
  t.is(created.headers.get('cache-control'), 'no-store');
  t.is(created.body.type, 'webhook');
  const w = created.body.data;
  t.regex(w.secret, WHSEC, 'whsec_ + base64 of 24 bytes');
  t.like(w, { url, events: ['roll.created', 'room.updated'], room: slug, format: 'standard', visibility: 'owner', is_active: true, disabled_reason: null });

  const got = await roller.api.get(`/webhook/${w.id}`);
  t.is(got.status, 200);
  t.false('secret' in got.body.data, 'the secret is never shown again');
  const list = await roller.api.get('/webhook');
  t.is(list.body.type, 'webhook[]');
  t.deepEqual(
    list.body.data.map((x: { id: string }) => x.id),
    [w.id],
  );
  t.is(list.body.meta.total, 1);
  t.is((await bystander.api.get(`/webhook/${w.id}`)).status, 404, "someone else's webhook does not exist for them");
  t.is((await bystander.api.delete(`/webhook/${w.id}`)).status, 404);
  t.is((await bystander.api.get(`/webhook/${w.id}/delivery`)).status, 404);

  const patched = await roller.api.patch(`/webhook/${w.id}`, { events: ['*'], is_active: false });
  t.is(patched.status, 200);
  t.like(patched.body.data, { events: ['*'], is_active: false });

  const bad = await roller.api.post('/webhook', { url, events: ['roll.exploded'] });
  t.is(bad.status, 400);
  t.is(bad.body.data.code, 'validation_error');
  t.is(bad.body.data.details[0].path, 'events[0]');
  const refusals: [string, RegExp][] = [
    ['http://example.com/hook', /https/],
    ['https://10.1.2.3/hook', /private/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://[::1]/hook', /loopback/],
    ['https://localhost/hook', /loopback/],
    ['https://LocalHost./hook', /loopback/],
    ['https://0x7f.2/hook', /loopback/], // 127.0.0.2 written in hex: judged as the address it is
    ['https://user:pw@example.com/hook', /credentials/],
    ['https://127.0.0.2:8443/hook', /loopback/],
  ];
  for (const [refused, rule] of refusals) {
    const res = await roller.api.post('/webhook', { url: refused, events: ['*'] });
    t.is(res.status, 400, refused);
    t.is(res.body.data.details?.[0]?.path, 'url', refused);
    t.regex(res.body.data.details[0].message, rule, refused);
  }
  t.is((await roller.api.patch(`/webhook/${w.id}`, { url: 'https://192.168.1.1/' })).status, 400, 'a change of URL is checked alike');
  t.is((await outsider.api.post('/webhook', { url, events: ['*'], room: slug })).status, 403, 'an outsider may not hear a room');
  t.is((await roller.api.post('/webhook', { url, events: ['*'], room: 'nosuchroom' })).status, 404);

  // The quota (4 here): one exists, three more, then a 409.
  for (let i = 0; i < 3; i++) t.is((await roller.api.post('/webhook', { url, events: ['roll.created'] })).status, 201);
  const over = await roller.api.post('/webhook', { url, events: ['roll.created'] });
  t.is(over.status, 409);
  t.is(over.body.data.code, 'quota_exceeded');

  t.is((await roller.api.delete(`/webhook/${w.id}`)).status, 204);
  t.is((await roller.api.get(`/webhook/${w.id}`)).status, 404);
});

test("a roll reaches the owner's webhook signed (Standard Webhooks), as the owner's socket gets it; a 500 is retried with the same webhook-id", async (t) => {
  const { roller, slug } = await table(ctx.server);
  const p = path('owner');
  // 500 twice, then 200: delivered at the third attempt.
  receiver.answer(p, (n) => (n < 2 ? { status: 500, body: 'busy' } : { status: 200, body: 'thanks' }));
  const w = await hook(roller, { url: receiver.url + p, events: ['roll.created'], room: slug });
  const roll = await rollOk(roller, { dice: [d('d20', { is_hidden: true }), d('d6')], room: slug, label: 'Stealth' });

  const got = await receiver.waitFor(p, (r) => r.length >= 3, 'three attempts');
  t.is(new Set(got.map((r) => r.headers['webhook-id'])).size, 1, 'every attempt carries the event id');
  t.is(got[0]!.body, got[2]!.body, 'retries send the same body');
  const body = verified(w.secret, got[2]!) as { type: string; timestamp: string; data: any };
  t.is(body.type, 'roll.created');
  t.regex(body.timestamp, /Z$/);
  const asOwnerSeesIt = (await roller.api.get(`/roll/${roll.uuid}`)).body.data;
  t.deepEqual(body.data, asOwnerSeesIt, "data is the roll as its owner's socket and REST get it (hidden values included: the owner rolled them)");
  t.not(body.data.values[0].value, null);
  t.throws(
    () => new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(got[2]!.body, got[2]!.headers as Record<string, string>),
    undefined,
    'another secret does not verify',
  );

  const log = await logUntil(roller, w.id, (l) => l[0]?.status === 'delivered', 'delivered in the log');
  t.like(log[0], {
    id: String(got[0]!.headers['webhook-id']),
    event_type: 'roll.created',
    status: 'delivered',
    attempts: 3,
    last_status_code: 200,
    response: 'thanks',
  });
});

test('public visibility: hidden values are null and whispers never sent; owner visibility of a bystander: whispers to others never sent', async (t) => {
  const { roller, whisperee, bystander, slug, participantId } = await table(ctx.server);
  const pub = path('public');
  const own = path('bystander');
  const wPublic = await hook(bystander, { url: receiver.url + pub, events: ['roll.created'], room: slug, visibility: 'public' });
  const wOwn = await hook(bystander, { url: receiver.url + own, events: ['roll.created'], room: slug });
  t.is(wPublic.visibility, 'public');

  await rollOk(roller, { dice: [d('d20')], room: slug, whisper: [participantId(whisperee)], label: 'secret' });
  const hidden = await rollOk(roller, { dice: [d('d20', { is_hidden: true }), d('d4')], room: slug, label: 'open' });

  const [gotPublic] = await receiver.waitFor(pub, (r) => r.length >= 1, 'the public roll');
  const [gotOwn] = await receiver.waitFor(own, (r) => r.length >= 1, 'the public roll (owner visibility)');
  for (const got of [gotPublic!, gotOwn!]) {
    const body = verified(got === gotPublic ? wPublic.secret : wOwn.secret, got);
    t.is(body.data.uuid, hidden.uuid, 'the whispered roll (made first) was never sent');
    t.is(body.data.values[0].value, null, 'a hidden die is null for anyone but its roller');
    t.is(body.data.values[0].value_to_display, null);
    t.not(body.data.values[1].value, null);
  }
  t.deepEqual(
    verified(wOwn.secret, gotOwn!).data,
    (await bystander.api.get(`/roll/${hidden.uuid}`)).body.data,
    "owner visibility: what the bystander's own socket gets",
  );
  t.is(verified(wPublic.secret, gotPublic!).data.room.passcode, null);
  // The log never holds a whisper's delivery either: not even recorded as skipped would be fine, but not delivered.
  const log = await deliveries(bystander, wPublic.id);
  t.false(log.some((l) => l.status === 'delivered' && l.id !== gotPublic!.headers['webhook-id']));
});

test("a participant removed from the room: its webhook's deliveries for that room end", async (t) => {
  const { roller, bystander, slug, participantId } = await table(ctx.server);
  const p = path('removed');
  const w = await hook(bystander, { url: receiver.url + p, events: ['roll.created'], room: slug });
  const before = await rollOk(roller, { dice: [d('d6')], room: slug });
  const [first] = await receiver.waitFor(p, (r) => r.length >= 1, 'the roll made while a participant');
  t.is(verified(w.secret, first!).data.uuid, before.uuid);

  t.is((await roller.api.delete(`/room/${slug}/participant/${participantId(bystander)}`)).status, 204);
  const after = await rollOk(roller, { dice: [d('d6')], room: slug });
  const log = await logUntil(bystander, w.id, (l) => l.length >= 2 && l[0]!.status !== 'pending', 'the later roll settled');
  t.like(log[0], { status: 'skipped', attempts: 0 });
  t.regex(log[0]!.error!, /no longer in the room/);
  t.false(
    receiver.at(p).some((r) => r.body.includes(after.uuid)),
    'the roll after the removal never reached the receiver',
  );
});

test('a test event, a rotated secret (the old one signs beside it), and a 410 that disables the webhook until PATCHed back', async (t) => {
  const user = await ctx.server.newUser();
  const p = path('lifecycle');
  let gone = false;
  receiver.answer(p, () => (gone ? { status: 410, body: 'gone' } : { status: 204 }));
  const w = await hook(user, { url: receiver.url + p, events: ['*'] });

  const test1 = await user.api.post(`/webhook/${w.id}/test`);
  t.is(test1.status, 202);
  t.is(test1.body.type, 'webhook_delivery');
  t.like(test1.body.data, { event_type: 'webhook.test', status: 'pending', attempts: 0 });
  const [first] = await receiver.waitFor(p, (r) => r.length >= 1, 'the test event');
  t.is(first!.headers['webhook-id'], test1.body.data.id);
  t.is(verified(w.secret, first!).type, 'webhook.test');

  const rotated = await user.api.post(`/webhook/${w.id}/secret`);
  t.is(rotated.status, 200);
  t.regex(rotated.body.data.secret, WHSEC);
  t.not(rotated.body.data.secret, w.secret);
  await user.api.post(`/webhook/${w.id}/test`);
  const [, second] = await receiver.waitFor(p, (r) => r.length >= 2, 'the second test event');
  t.is(verified(rotated.body.data.secret, second!).type, 'webhook.test', 'the new secret verifies');
  t.is(verified(w.secret, second!).type, 'webhook.test', 'and the old one still does, for a day');
  t.is(String(second!.headers['webhook-signature']).split(' ').length, 2);

  // Its own rolls (no room): then a 410 disables it at once.
  gone = true;
  await rollOk(user, { dice: [d('d8')] });
  await receiver.waitFor(p, (r) => r.length >= 3, 'the roll');
  const disabled = await until(
    async () => (await user.api.get(`/webhook/${w.id}`)).body.data,
    (x) => !x.is_active,
    'disabled',
  );
  t.false(disabled.is_active);
  t.regex(disabled.disabled_reason, /410/);
  t.is((await user.api.post(`/webhook/${w.id}/test`)).status, 409, 'a disabled webhook cannot be tested');
  const enabled = await user.api.patch(`/webhook/${w.id}`, { is_active: true });
  t.like(enabled.body.data, { is_active: true, disabled_reason: null });
});

test('Discord: one execute-webhook message per roll with an embed (hidden die as ?), no signature headers, 429 retry_after honoured', async (t) => {
  const { roller, slug } = await table(ctx.server);
  const p = path('discord');
  receiver.answer(p, (n) =>
    n === 0
      ? {
          status: 429,
          body: JSON.stringify({ message: 'You are being rate limited.', retry_after: 0.4, global: false }),
          headers: { 'content-type': 'application/json' },
        }
      : { status: 204 },
  );
  const w = await hook(roller, { url: receiver.url + p, events: ['*'], room: slug, format: 'discord', visibility: 'owner' });
  t.is(w.visibility, 'public', 'a Discord channel gets what a bystander sees');
  const roll = await rollOk(roller, { dice: [d('d20', { is_hidden: true }), d('d6')], room: slug, label: 'Attack *roll*' });

  const got = await receiver.waitFor(p, (r) => r.length >= 2, 'the message, after the 429');
  t.true(got[1]!.at - got[0]!.at >= 400, "the second attempt waited for Discord's retry_after");
  t.is(got[0]!.body, got[1]!.body);
  t.is(got[1]!.headers['webhook-signature'], undefined, 'Discord takes no signature');
  const message = got[1]!.json;
  t.deepEqual(Object.keys(message).sort(), ['allowed_mentions', 'embeds']);
  t.deepEqual(message.allowed_mentions, { parse: [] }, 'nobody is pinged by a name or label');
  t.is(message.embeds.length, 1);
  const embed = message.embeds[0];
  const room = (await roller.api.get(`/room/${slug}`)).body.data;
  const seat = room.participants.find((x: { user: { uuid: string } }) => x.user.uuid === roller.user.uuid);
  t.is(embed.author.name, seat.username);
  t.is(embed.color, Number.parseInt(seat.color.slice(1), 16));
  t.is(embed.title, 'Attack \\*roll\\*', 'markdown in a label is escaped');
  t.is(typeof embed.description, 'string');
  t.is(embed.timestamp, roll.created_at);
  t.is(embed.fields[0].name, 'Dice');
  t.regex(embed.fields[0].value, /^d20: \?, d6: [1-6]$/);
  t.deepEqual(embed.fields[1], { name: 'Total', value: '?', inline: true }, 'a total with a hidden die is not given away');
  // Discord's documented limits.
  t.true(embed.title.length <= 256 && embed.fields.every((f: { value: string }) => f.value.length <= 1024));

  const log = await logUntil(roller, w.id, (l) => l.some((x) => x.event_type === 'roll.created' && x.status === 'delivered'), 'delivered');
  t.like(
    log.find((x) => x.event_type === 'roll.created'),
    { attempts: 2, last_status_code: 204 },
  );
});

test('where deliveries may go: addresses refused, checked at delivery time against what the name resolves to now', async (t) => {
  for (const address of [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:a9fe:a9fe',
  ]) {
    t.true(isForbiddenAddress(address), address);
  }
  for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111']) t.false(isForbiddenAddress(address), address);
  const strict = { allowedHosts: [] as string[], allowPrivate: false };
  // localhost resolves to a loopback address: refused when resolved, as a rebinding name would be.
  await t.throwsAsync(() => resolveTarget(new URL('https://localhost:8443/'), strict), { instanceOf: RefusedUrlError, message: /loopback/ });
  t.throws(() => checkUrlShape('http://127.0.0.1:9/', strict), { instanceOf: RefusedUrlError, message: /https/ });
  t.notThrows(() => checkUrlShape('http://127.0.0.1:9/', { allowedHosts: [], allowPrivate: true }), 'WEBHOOK_ALLOW_PRIVATE lets a LAN install use it');
  t.notThrows(() => checkUrlShape('http://127.0.0.1:9/', { allowedHosts: ['127.0.0.1:9'], allowPrivate: false }));
  t.throws(() => checkUrlShape('http://127.0.0.1:10/', { allowedHosts: ['127.0.0.1:9'], allowPrivate: false }), undefined, 'host:port allows that port only');
});

test('participant events: joined, updated and left, as the room sees its participants; room.updated beside them', async (t) => {
  const owner = await ctx.server.newUser();
  const slug = (await owner.api.post('/room', { name: 'Lobby' })).body.data.slug as string;
  const p = path('participants');
  const w = await hook(owner, { url: receiver.url + p, events: ['participant.joined', 'participant.updated', 'participant.left', 'room.updated'], room: slug });
  const guest = await ctx.server.newUser();
  const joined = await guest.api.post(`/room/${slug}/participant`);
  const seat = joined.body.data.participants.find((x: { user: { uuid: string } }) => x.user.uuid === guest.user.uuid);
  await receiver.waitFor(p, (r) => r.some((x) => x.json?.type === 'participant.joined'), 'joined');
  t.is((await guest.api.patch(`/room/${slug}/participant/${seat.id}`, { username: 'Renamed' })).status, 200);
  await receiver.waitFor(p, (r) => r.some((x) => x.json?.type === 'participant.updated'), 'updated');
  t.is((await guest.api.delete(`/room/${slug}/participant/${seat.id}`)).status, 204);
  const got = await receiver.waitFor(
    p,
    (r) => r.some((x) => x.json?.type === 'participant.left') && r.filter((x) => x.json?.type === 'room.updated').length >= 3,
    'left',
  );
  const of = (type: string) => got.filter((x) => x.json?.type === type).map((x) => verified(w.secret, x).data);
  t.like(of('participant.joined')[0], { id: seat.id, username: seat.username, user: { uuid: guest.user.uuid } });
  t.like(of('participant.updated')[0], { id: seat.id, username: 'Renamed' });
  t.like(of('participant.left')[0], { id: seat.id, user: { uuid: guest.user.uuid } });
  t.true(of('room.updated').every((room) => room.slug === slug));
});

test('the webhook settings: defaults, a retry schedule in units, one sentence for a bad value', (t) => {
  const base = { DATA_DIR: '/tmp' };
  const defaults = loadConfig(base).webhooks;
  t.deepEqual(defaults.retryScheduleMs, [5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 43_200_000]);
  t.like(defaults, { allowPrivate: false, perUser: 10, timeoutMs: 10_000, allowedHosts: [] });
  t.true(defaults.leaseMs >= 3 * defaults.timeoutMs, 'a lease outlives an attempt');
  t.deepEqual(loadConfig({ ...base, WEBHOOK_ALLOWED_HOSTS: 'Hooks.Lan, 10.0.0.5:8080' }).webhooks.allowedHosts, ['hooks.lan', '10.0.0.5:8080']);
  t.throws(() => loadConfig({ ...base, WEBHOOK_RETRY_SCHEDULE: '5s,soon' }), { message: /WEBHOOK_RETRY_SCHEDULE is invalid \(its part "soon" is not a delay/ });
  t.throws(() => loadConfig({ ...base, WEBHOOK_ALLOWED_HOSTS: 'http://x' }), { message: /WEBHOOK_ALLOWED_HOSTS is invalid/ });
});
