import test from 'ava';
import { useServer } from '../helpers/server';
import { requestWithHost } from '../helpers/hostHeader';
import { fileForm, PNG, userWithRoom } from '../rooms/support';

/** With ALLOWED_HOSTS set, exactly those hosts may stand in a stored link (and no longer loopback). */
const ctx = useServer(test, { ALLOWED_HOSTS: 'dice.example.com,dice.example.com:8443' });

async function upload(key: string, slug: string, host: string) {
  const res = await requestWithHost(`${ctx.server.url}/api/1.0/room/${slug}`, 'POST', host, { key, body: fileForm(PNG) });
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.body.data.bg_file_path as string;
}

test('an allowed host gives an absolute link on it; any other host, loopback included, a root-relative one', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  t.regex(await upload(owner.key, slug, 'dice.example.com'), new RegExp(`^http://dice\\.example\\.com/api/1\\.0/room/${slug}/background/`));
  t.regex(await upload(owner.key, slug, 'DICE.example.com:8080'), /^http:\/\/dice\.example\.com:8080\//, 'an entry without a port allows any port');
  t.regex(await upload(owner.key, slug, 'dice.example.com:8443'), /^http:\/\/dice\.example\.com:8443\//);
  t.regex(await upload(owner.key, slug, 'evil.example'), /^\/api\/1\.0\/room\//);
  t.regex(await upload(owner.key, slug, 'dice.example.com.evil.example'), /^\/api\/1\.0\/room\//);
  t.regex(await upload(owner.key, slug, new URL(ctx.server.url).host), /^\/api\/1\.0\/room\//, 'loopback is no longer allowed once the list is set');
});
