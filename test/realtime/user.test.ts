import test from 'ava';
import { useServer } from '../helpers/server';
import { closeAll, connectUser, type Client } from '../helpers/sockets';
import { manifest, postTheme } from '../fixtures/themes';

const ctx = useServer(test);
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

test("the /user channel carries DiceBoxCreateEvent and DiceBoxDeleteEvent to that user's sockets only", async (t) => {
  const owner = await ctx.server.newUser();
  const other = await ctx.server.newUser();
  const [tab1, tab2, stranger] = await Promise.all([
    connectUser(ctx.server.url, owner.key),
    connectUser(ctx.server.url, owner.key),
    connectUser(ctx.server.url, other.key),
  ]);
  clients.push(tab1, tab2, stranger);
  const m = manifest();
  const created = await postTheme(owner.api, m);
  t.is(created.status, 201, created.text);
  for (const c of [tab1, tab2]) {
    const got = await c.waitFor('DiceBoxCreateEvent');
    t.is(got.data.id, m.id);
    t.is(got.data.version, '1.0.0');
    t.is(got.data.user.uuid, owner.user.uuid);
  }
  // The stranger's own theme is a later event for it: nothing of the owner's came first.
  const mine = manifest();
  t.is((await postTheme(other.api, mine)).status, 201);
  await stranger.waitFor('DiceBoxCreateEvent');
  t.deepEqual(
    stranger.of('DiceBoxCreateEvent').map((p) => p.data.id),
    [mine.id],
  );

  t.is((await owner.api.delete(`/theme/${m.id}`)).status, 204);
  const gone = await tab1.waitFor('DiceBoxDeleteEvent');
  t.deepEqual(gone, { data: { id: m.id } });
});
