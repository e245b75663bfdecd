import test from 'ava';
import type { Page } from 'playwright-core';
import { useServer } from '../helpers/server';
import { useChromium, watchPage } from './chromium';
import { socketData } from '../../src/realtime/connection/handshake';
import { roomNamespace } from '../../src/realtime/names';

/**
 * The board reconnecting (exact replay, `since_seq`): its connection drops, rolls are made meanwhile,
 * socket.io-client reconnects by itself and the board's client sends the highest seq it received
 * (`since_seq`): the missed rolls are listed once each.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];

async function listed(page: Page, uuid: string): Promise<number> {
  await page.locator(`#rolls li[data-roll-uuid="${uuid}"]`).first().waitFor({ timeout: 20_000 });
  return page.locator(`#rolls li[data-roll-uuid="${uuid}"]`).count();
}

async function roll(api: { post(path: string, body: unknown): Promise<{ status: number; body: any }> }, slug: string): Promise<string> {
  const res = await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
  if (res.status !== 201) throw new Error(`roll failed: ${res.status}`);
  return res.body.data.uuid as string;
}

test('the board comes back with since_seq after its connection drops: the rolls made meanwhile are listed once each', async (t) => {
  const server = ctx.server;
  const owner = await server.newUser();
  const slug = (await owner.api.post('/room', { name: 'Replay', is_public: true })).body.data.slug as string;
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  watchPage(page, logs);
  await page.goto(`${server.url}/board/${slug}#key=${owner.key}`);
  await page.locator('#connection[data-state="online"]').waitFor({ state: 'attached', timeout: 20_000 });
  const first = await roll(owner.api, slug);
  t.is(await listed(page, first), 1);

  const namespace = server.io._nsps.get(roomNamespace(slug))!;
  const [before] = [...namespace.sockets.values()];
  const seenUpTo = await server.realtime.broadcaster.sequence.head(roomNamespace(slug));
  // The connection drops (as a network would drop it): the page's client reconnects by itself.
  before!.conn.close();
  const missed = [await roll(owner.api, slug), await roll(owner.api, slug)];
  for (const uuid of missed) t.is(await listed(page, uuid), 1, 'listed once');
  // The namespace may be a new one (the old went with its last socket).
  const socketAfter = () => [...(server.io._nsps.get(roomNamespace(slug))?.sockets.values() ?? [])].find((s) => s !== before);
  for (let i = 0; i < 200 && !socketAfter(); i++) await new Promise((r) => setTimeout(r, 50));
  const after = socketAfter();
  t.truthy(after, 'a new socket');
  t.is(socketData(after!).sinceSeq, seenUpTo, 'the board sent the highest seq it had received');
  t.is(await listed(page, first), 1, 'the roll seen before is not listed twice');
});
