import test from 'ava';
import { useServer } from '../helpers/server';
import { requestWithHost } from '../helpers/hostHeader';
import { fileForm, PNG, userWithRoom } from '../rooms/support';

/** With PUBLIC_URL set, stored links use it whatever Host the upload came with. */
const ctx = useServer(test, { PUBLIC_URL: 'https://dice.example/' });

test("the background link is under PUBLIC_URL, never the request's Host", async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  for (const host of ['evil.example', new URL(ctx.server.url).host]) {
    const res = await requestWithHost(`${ctx.server.url}/api/1.0/room/${slug}`, 'POST', host, { key: owner.key, body: fileForm(PNG) });
    t.is(res.status, 200);
    t.regex(res.body.data.bg_file_path, new RegExp(`^https://dice\\.example/api/1\\.0/room/${slug}/background/[0-9a-f]{64}\\.png$`), host);
  }
});
