import test from 'ava';
import WebSocket from 'ws';
import { withDeadline } from '../helpers/deadline';
import { useServer } from '../helpers/server';
import { SDK_KEY } from '../helpers/pusher';

// A file of its own: the test stops the server.
const ctx = useServer(test);

test('shutting down closes Pusher connections with 4200 (pusher-js reconnects at once, to another instance behind the balancer)', async (t) => {
  const { server } = ctx;
  const user = await server.newUser();
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/app/${SDK_KEY}?protocol=7`);
  const nextFrame = (what: string) => withDeadline(new Promise<any>((resolve) => ws.once('message', (m) => resolve(JSON.parse(String(m))))), 10_000, what);
  const hello = await nextFrame('pusher:connection_established');
  const socketId = JSON.parse(hello.data).socket_id;
  const channel = `private-user.${user.user.uuid}`;
  const grant = (await (
    await fetch(`${server.url}/broadcasting/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${user.key}` },
      body: JSON.stringify({ socket_id: socketId, channel_name: channel }),
    })
  ).json()) as any;
  ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel, ...grant } }));
  const answer = await nextFrame('the answer to pusher:subscribe');
  t.is(answer.event, 'pusher_internal:subscription_succeeded');
  const closed = withDeadline(new Promise<number>((resolve) => ws.on('close', (code) => resolve(code))), 15_000, 'the connection to be closed at shutdown');
  await server.close();
  t.is(await closed, 4200);
});
