import test from 'ava';
import WebSocket from 'ws';
import { withDeadline } from '../helpers/deadline';
import { useServer, type TestServer } from '../helpers/server';
import { SDK_KEY } from '../helpers/pusher';

// Liveness with a one-second activity timeout (PUSHER_ACTIVITY_TIMEOUT): a connection that never
// subscribes is closed with 4202; one that stops answering pings with 4201; shutdown says 4200.
const ctx = useServer(test, { PUSHER_ACTIVITY_TIMEOUT: '1' });

function open(base = ctx.server.url): Promise<{ ws: WebSocket; frames: any[]; closed: Promise<{ code: number; at: number }>; openedAt: number }> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/app/${SDK_KEY}?protocol=7`, { autoPong: true });
  const frames: any[] = [];
  // The activity timeout here is 1 s: a connection still open 10 s on is a failure, not a wait.
  const closed = withDeadline(
    new Promise<{ code: number; at: number }>((resolve) => ws.on('close', (code) => resolve({ code, at: Date.now() }))),
    10_000,
    'the server to close the connection',
  );
  closed.catch(() => undefined); // awaited by the tests that expect a close; the others close it themselves
  return withDeadline(
    new Promise((resolve) => {
      ws.on('message', (m) => {
        frames.push(JSON.parse(String(m)));
        if (frames.length === 1) resolve({ ws, frames, closed, openedAt: Date.now() });
      });
    }),
    10_000,
    'pusher:connection_established',
  );
}

test('a connection that never subscribes is closed with 4202 after its activity timeout', async (t) => {
  const { closed, openedAt, frames } = await open();
  t.is(JSON.parse(frames[0].data).activity_timeout, 1);
  const { code, at } = await closed;
  t.is(code, 4202);
  t.log(`closed ${at - openedAt} ms after connection_established`);
});

/** A connection holding its user's private channel, granted through POST /broadcasting/auth. */
async function subscribed(base: TestServer = ctx.server) {
  const user = await base.newUser();
  const conn = await open(base.url);
  const socketId = JSON.parse(conn.frames[0].data).socket_id;
  const channel = `private-user.${user.user.uuid}`;
  const grant = (await (
    await fetch(`${base.url}/broadcasting/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${user.key}` },
      body: JSON.stringify({ socket_id: socketId, channel_name: channel }),
    })
  ).json()) as any;
  conn.ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel, ...grant } }));
  return conn;
}

const next = (ws: WebSocket, event: string) =>
  withDeadline(new Promise<any>((resolve) => ws.on('message', (m) => JSON.parse(String(m)).event === event && resolve(JSON.parse(String(m))))), 10_000, event);

test('a silent subscribed connection is pinged, and closed with 4201 when it does not answer', async (t) => {
  const { ws, closed } = await subscribed();
  await next(ws, 'pusher:ping');
  const pingedAt = Date.now();
  const { code, at } = await closed;
  t.is(code, 4201);
  t.log(`closed ${at - pingedAt} ms after the unanswered ping`);
});

test('answering the pings keeps a connection open', async (t) => {
  const { ws, frames } = await subscribed();
  ws.on('message', (m) => JSON.parse(String(m)).event === 'pusher:ping' && ws.send(JSON.stringify({ event: 'pusher:pong', data: {} })));
  await new Promise((r) => setTimeout(r, 3500));
  t.true(frames.filter((f) => f.event === 'pusher:ping').length >= 1);
  t.is(ws.readyState, WebSocket.OPEN);
  ws.close();
});
