/**
 * The room page (GET /room/{slug}/settings) in the browser: Preact, every value put in the DOM as
 * text. It reads and changes the room through /api/1.0 with the page's key, as any client does: what
 * it shows and allows is what the API shows and allows that key (the owner's controls are offered to
 * the owner; the API is what refuses anyone else).
 */
import { h, render, type ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, RestClient } from '../../client/rest';
import type { Room, User } from '../../client/types';
import { pageKey, pageSession } from '../client/pageKey';
import { Invite } from './invite';
import { OwnerControls } from './owner';
import { MySeat, Players } from './people';
import { RoomStatistics } from './stats';
import { messageOf } from './ui';

const slug = document.body.dataset.slug ?? '';
/** A passcode in the address (an invite opened here): shown to the API to see a private room. */
const passcodeGiven = new URLSearchParams(location.search).get('passcode');
const boardPath = `/room/${encodeURIComponent(slug)}`;
const REFRESH_MS = 15_000;

type Phase =
  | { kind: 'loading' }
  | { kind: 'nokey' }
  | { kind: 'refused'; message: string }
  | { kind: 'ready'; client: RestClient; me: User; room: Room }
  | { kind: 'left'; name: string }
  | { kind: 'deleted'; name: string };

/** Signed in on the web: who, and the session's CSRF token for Sign out (src/pages/session.ts). */
const session = pageSession();

function Layout(props: { title: string; children?: ComponentChildren }) {
  return h('div', { class: 'layout' }, [
    h('header', { class: 'top' }, [
      h('a', { class: 'brand', href: '/' }, 'Dice'),
      h('nav', { 'aria-label': 'Room' }, [h('a', { href: boardPath }, 'Open the board'), h('a', { href: '/' }, 'My rooms')]),
      session
        ? h('form', { method: 'post', action: '/signout', class: 'signout' }, [
            h('input', { type: 'hidden', name: '_csrf', value: session.csrf }),
            h('a', { class: 'who', href: '/account' }, session.user),
            h('button', { type: 'submit', class: 'secondary small' }, 'Sign out'),
          ])
        : null,
    ]),
    h('main', { class: 'content' }, [h('h1', null, props.title), props.children]),
  ]);
}

function refusal(err: unknown): string {
  if (err instanceof ApiError && err.status === 401)
    return 'The key this browser keeps no longer works: sign in again, or open the room\u2019s board to play as a new guest.';
  if (err instanceof ApiError && err.status === 404) return 'There is no such room (or it was deleted).';
  return messageOf(err);
}

function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });

  // The phase as of now, for the timer's refresh (its closure would see the first one).
  const current = useRef(phase);
  current.current = phase;

  const load = useCallback(async () => {
    const key = await pageKey();
    if (!key) return setPhase({ kind: 'nokey' });
    const client = new RestClient({ baseUrl: '', apiKey: key });
    try {
      const [me, room] = await Promise.all([client.me(), client.getRoom(slug, passcodeGiven)]);
      setPhase({ kind: 'ready', client, me, room });
    } catch (err) {
      setPhase({ kind: 'refused', message: refusal(err) });
    }
  }, []);

  /** The room read again, while the page shows it: someone joined, or was sent out (this user too). */
  const refresh = useCallback(async () => {
    const shown = current.current;
    if (shown.kind !== 'ready' || document.visibilityState !== 'visible') return;
    try {
      const room = await shown.client.getRoom(slug, passcodeGiven);
      const now = current.current;
      if (now.kind === 'ready') setPhase({ ...now, room });
    } catch (err) {
      // A passing network failure leaves the page as it was.
      if (err instanceof ApiError && err.status === 0) return;
      if (current.current.kind === 'ready') setPhase({ kind: 'refused', message: refusal(err) });
    }
  }, []);

  useEffect(() => {
    void load();
    // Read again when the tab comes back, and every 15 s while it is shown: one small GET (a socket
    // would also show this page's user as present at the table).
    const again = () => void refresh();
    document.addEventListener('visibilitychange', again);
    const timer = setInterval(again, REFRESH_MS);
    return () => {
      document.removeEventListener('visibilitychange', again);
      clearInterval(timer);
    };
  }, [load, refresh]);

  useEffect(() => {
    if (phase.kind === 'ready') document.title = `${phase.room.name} · Room settings`;
  }, [phase]);

  switch (phase.kind) {
    case 'loading':
      return h(Layout, { title: 'Room settings' }, h('p', { role: 'status' }, 'Loading the room\u2026'));
    case 'nokey':
      return h(Layout, { title: 'Room settings' }, [
        h('p', null, 'This browser does not play in any room yet.'),
        h('p', { class: 'links' }, [
          h('a', { href: boardPath }, 'Open the room\u2019s board to join it'),
          h('a', { href: `/signin?next=${encodeURIComponent(location.pathname)}` }, 'Sign in'),
        ]),
      ]);
    case 'refused':
      return h(Layout, { title: 'Room settings' }, [
        h('p', { class: 'message error', role: 'alert' }, phase.message),
        h('p', null, h('a', { href: boardPath }, 'Open the room\u2019s board')),
      ]);
    case 'left':
      return h(Layout, { title: 'You left the room' }, [
        h('p', null, `You are no longer a player of "${phase.name}".`),
        h('p', null, h('a', { href: '/' }, 'Your rooms')),
      ]);
    case 'deleted':
      return h(Layout, { title: 'The room is deleted' }, [
        h('p', null, `"${phase.name}" is gone, with its rolls.`),
        h('p', null, h('a', { href: '/' }, 'Your rooms')),
      ]);
    case 'ready': {
      const { room, me, client } = phase;
      const setRoom = (next: Room) => setPhase({ ...phase, room: next });
      const props = { room, me, client, setRoom };
      const seat = room.participants.find((p) => p.user.uuid === me.uuid);
      const owner = room.user.uuid === me.uuid;
      return h(Layout, { title: room.name }, [
        h('p', { class: 'hint' }, [
          `${room.is_public ? 'Public' : 'Private'} room of ${owner ? 'yours' : room.user.username}. `,
          seat ? null : 'You are not a player in it: ',
          seat ? null : h('a', { href: boardPath }, 'join it on its board'),
        ]),
        h(Invite, { room, passcodeGiven }),
        h(Players, props),
        seat ? h(MySeat, { ...props, key: seat.id, seat, onLeft: () => setPhase({ kind: 'left', name: room.name }) }) : null,
        seat ? h(RoomStatistics, props) : null,
        owner ? h(OwnerControls, { ...props, onDeleted: () => setPhase({ kind: 'deleted', name: room.name }) }) : null,
      ]);
    }
  }
}

const root = document.getElementById('app')!;
root.textContent = '';
render(h(App, null), root);
