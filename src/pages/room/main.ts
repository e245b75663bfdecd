/**
 * The room page (GET /room/{slug}/settings) in the browser: Preact, every value put in the DOM as
 * text. It reads and changes the room through /api/1.0 with the page's key, as any client does: what
 * it shows and allows is what the API shows and allows that key (the owner's controls are offered to
 * the owner; the API is what refuses anyone else).
 */
import { h, render, type ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, RestClient } from '../../client/rest';
import type { Room, User } from '../../client/types';
import { Invite } from './invite';
import { pageKey } from './key';
import { OwnerControls } from './owner';
import { MySeat, Players } from './people';
import { messageOf } from './ui';

const slug = document.body.dataset.slug ?? '';
/** A passcode in the address (an invite opened here): shown to the API to see a private room. */
const passcodeGiven = new URLSearchParams(location.search).get('passcode');
const boardPath = `/room/${encodeURIComponent(slug)}`;

type Phase =
  | { kind: 'loading' }
  | { kind: 'nokey' }
  | { kind: 'refused'; message: string }
  | { kind: 'ready'; client: RestClient; me: User; room: Room }
  | { kind: 'left'; name: string }
  | { kind: 'deleted'; name: string };

function Layout(props: { title: string; children?: ComponentChildren }) {
  return h('div', { class: 'layout' }, [
    h('header', { class: 'top' }, [
      h('a', { class: 'brand', href: '/' }, 'Dice'),
      h('nav', { 'aria-label': 'Room' }, [h('a', { href: boardPath }, 'Open the board'), h('a', { href: '/' }, 'My rooms')]),
    ]),
    h('main', { class: 'content' }, [h('h1', null, props.title), props.children]),
  ]);
}

function refusal(err: unknown): string {
  if (err instanceof ApiError && err.status === 401) return 'The key this browser keeps no longer works: sign in again, or open the room\u2019s board to play as a new guest.';
  if (err instanceof ApiError && err.status === 404) return 'There is no such room (or it was deleted).';
  return messageOf(err);
}

function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });

  const load = useCallback(async (quiet: boolean) => {
    const key = await pageKey();
    if (!key) return setPhase({ kind: 'nokey' });
    const client = new RestClient({ baseUrl: '', apiKey: key });
    try {
      const [me, room] = await Promise.all([client.me(), client.getRoom(slug, passcodeGiven)]);
      setPhase({ kind: 'ready', client, me, room });
      document.title = `${room.name} · Room settings`;
    } catch (err) {
      // Coming back to the tab: a passing network failure leaves the page as it was.
      if (quiet && err instanceof ApiError && err.status === 0) return;
      setPhase({ kind: 'refused', message: refusal(err) });
    }
  }, []);

  useEffect(() => {
    void load(false);
    // Someone joined, or the owner changed something elsewhere: read the room again when the tab is back.
    const again = () => {
      if (document.visibilityState === 'visible') void load(true);
    };
    document.addEventListener('visibilitychange', again);
    return () => document.removeEventListener('visibilitychange', again);
  }, [load]);

  switch (phase.kind) {
    case 'loading':
      return h(Layout, { title: 'Room settings' }, h('p', { role: 'status' }, 'Loading the room\u2026'));
    case 'nokey':
      return h(Layout, { title: 'Room settings' }, [
        h('p', null, 'This browser does not play in any room yet.'),
        h('p', { class: 'links' }, [h('a', { href: boardPath }, 'Open the room\u2019s board to join it'), h('a', { href: `/signin?next=${encodeURIComponent(location.pathname)}` }, 'Sign in')]),
      ]);
    case 'refused':
      return h(Layout, { title: 'Room settings' }, [h('p', { class: 'message error', role: 'alert' }, phase.message), h('p', null, h('a', { href: boardPath }, 'Open the room\u2019s board'))]);
    case 'left':
      return h(Layout, { title: 'You left the room' }, [h('p', null, `You are no longer a player of "${phase.name}".`), h('p', null, h('a', { href: '/' }, 'Your rooms'))]);
    case 'deleted':
      return h(Layout, { title: 'The room is deleted' }, [h('p', null, `"${phase.name}" is gone, with its rolls.`), h('p', null, h('a', { href: '/' }, 'Your rooms'))]);
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
        owner ? h(OwnerControls, { ...props, onDeleted: () => setPhase({ kind: 'deleted', name: room.name }) }) : null,
      ]);
    }
  }
}

const root = document.getElementById('app')!;
root.textContent = '';
render(h(App, null), root);
