import { h, render, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, RestClient as DiceClient } from '../../client/rest';
import type { Page, Room, User } from '../../client/types';
import { ensurePageKey, forgetPageKey, pageKey, pageSession } from '../client/pageKey';
import { markJoinIntent, parseInvite } from '../client/invite';

/**
 * The home page for people (GET /, src/pages/routes.ts): Create a room, My rooms, Join a room, who is
 * signed in; the developer links below. Rendered with Preact, every value as text. The API is called
 * with the page key (src/pages/client/pageKey.ts): the session's when signed in, else the guest key
 * this browser keeps; creating a room makes a guest when there is neither.
 */

interface HomeData {
  signupAllowed: boolean;
  guestsAllowed: boolean;
}

const root = document.getElementById('app')!;
const data = JSON.parse(root.dataset.page ?? '{}') as HomeData;
const session = pageSession();
/** Where the board shows a new room's invite first (src/board/invitePanel.ts reads it). */
const CREATED = 'openDice.created';
const PER_PAGE = 10;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : 'Something went wrong: try again.');

function Header(props: { me: User | null }) {
  return h('header', { class: 'top' }, [
    h('a', { class: 'brand', href: '/' }, 'Open Dice'),
    session
      ? h('div', { class: 'who' }, [
          h('span', null, ['Signed in as ', h('strong', null, session.user)]),
          h('a', { href: '/account' }, 'Account'),
          h('form', { method: 'post', action: '/signout', class: 'signout' }, [
            h('input', { type: 'hidden', name: '_csrf', value: session.csrf }),
            h('button', { type: 'submit', class: 'secondary' }, 'Sign out'),
          ]),
        ])
      : h('nav', { class: 'who', 'aria-label': 'Account' }, [
          props.me ? h('span', null, ['Playing as ', h('strong', null, props.me.name), ' (guest)']) : null,
          props.me ? h('a', { href: '/claim?next=/' }, 'Keep this account') : null,
          h('a', { href: '/signin?next=/' }, 'Sign in'),
          data.signupAllowed ? h('a', { href: '/signup?next=/' }, 'Sign up') : null,
        ]),
  ]);
}

function Section(props: { id: string; title: string; children?: ComponentChildren }) {
  return h('section', { class: 'card', 'aria-labelledby': `${props.id}-title` }, [h('h2', { id: `${props.id}-title` }, props.title), props.children]);
}

function CreateRoom() {
  const [name, setName] = useState('');
  const [visibility, setVisibility] = useState<'private' | 'public'>('private');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const cannot = !session && !data.guestsAllowed;

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      const client = new DiceClient({ baseUrl: '', apiKey: await ensurePageKey() });
      const room = await client.createRoom({ name: name.trim() || undefined, is_public: visibility === 'public' });
      try {
        sessionStorage.setItem(CREATED, room.slug);
      } catch {
        // Without storage the board still shows the invite, just not opened first.
      }
      location.assign(`/room/${encodeURIComponent(room.slug)}`);
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  };

  if (cannot)
    return h(
      Section,
      { id: 'create', title: 'Create a room' },
      h('p', null, [
        'This server makes rooms for accounts only: ',
        h('a', { href: '/signin?next=/' }, 'sign in'),
        data.signupAllowed ? [' or ', h('a', { href: '/signup?next=/' }, 'sign up')] : null,
        '.',
      ]),
    );
  return h(Section, { id: 'create', title: 'Create a room' }, [
    h('form', { class: 'stack', onSubmit: submit }, [
      h('div', { class: 'field' }, [
        h('label', { for: 'room-name' }, 'Room name'),
        h('input', {
          id: 'room-name',
          name: 'name',
          maxLength: 255,
          placeholder: 'Friday night table',
          autocomplete: 'off',
          value: name,
          onInput: (e: Event) => setName((e.target as HTMLInputElement).value),
        }),
      ]),
      h('fieldset', { class: 'choice' }, [
        h('legend', null, 'Who can join'),
        h('label', null, [
          h('input', { type: 'radio', name: 'visibility', value: 'private', checked: visibility === 'private', onChange: () => setVisibility('private') }),
          h('span', null, [h('strong', null, 'Private'), ': with the invite link or the passcode']),
        ]),
        h('label', null, [
          h('input', { type: 'radio', name: 'visibility', value: 'public', checked: visibility === 'public', onChange: () => setVisibility('public') }),
          h('span', null, [h('strong', null, 'Public'), ": anyone with the room's address"]),
        ]),
      ]),
      h('p', { class: 'hint' }, 'The room opens at once, with its invite link (and, for a private room, its passcode) ready to copy.'),
      h('button', { type: 'submit', disabled: busy }, busy ? 'Creating…' : 'Create a room'),
      error ? h('p', { class: 'message error', role: 'alert' }, error) : null,
    ]),
  ]);
}

function RoomItem(props: { room: Room; me: User | null }) {
  const { room, me } = props;
  const mine = me !== null && room.user.uuid === me.uuid;
  const players = room.participants.length;
  return h('li', { class: 'room' }, [
    h('a', { href: `/room/${encodeURIComponent(room.slug)}`, class: 'room-name' }, room.name),
    h('span', { class: 'tags' }, [
      h('span', { class: 'tag' }, room.is_public ? 'public' : 'private'),
      mine ? h('span', { class: 'tag' }, 'yours') : null,
      h('span', { class: 'muted' }, `${players} ${players === 1 ? 'player' : 'players'}`),
    ]),
  ]);
}

function MyRooms(props: { client: DiceClient | null; me: User | null; loading: boolean }) {
  const [page, setPage] = useState(1);
  const [result, setResult] = useState<Page<Room> | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    if (!props.client) return;
    let live = true;
    props.client
      .listRooms({ page, per_page: PER_PAGE })
      .then((p) => live && (setResult(p), setError('')))
      .catch((err: unknown) => live && setError(messageOf(err)));
    return () => {
      live = false;
    };
  }, [props.client, page]);

  let body: ComponentChildren;
  if (props.loading) body = h('p', { class: 'muted' }, 'Loading…');
  else if (!props.client) body = h('p', { class: 'muted' }, 'Rooms you create or join show up here.');
  else if (error) body = h('p', { class: 'message error', role: 'alert' }, error);
  else if (!result) body = h('p', { class: 'muted' }, 'Loading…');
  else if (!result.data.length) body = h('p', { class: 'muted' }, 'No rooms yet: create one above, or join one with an invite link.');
  else {
    const { current_page: current, last_page: last } = result.meta;
    body = [
      h(
        'ul',
        { class: 'rooms' },
        result.data.map((room) => h(RoomItem, { key: room.slug, room, me: props.me })),
      ),
      last > 1
        ? h('nav', { class: 'pager', 'aria-label': 'My rooms pages' }, [
            h('button', { type: 'button', class: 'secondary', disabled: current <= 1, onClick: () => setPage(current - 1) }, 'Previous page'),
            h('span', { 'aria-live': 'polite' }, `Page ${current} of ${last}`),
            h('button', { type: 'button', class: 'secondary', disabled: current >= last, onClick: () => setPage(current + 1) }, 'Next page'),
          ])
        : null,
    ];
  }
  return h(Section, { id: 'rooms', title: 'My rooms' }, body);
}

function JoinRoom() {
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    const invite = parseInvite(text);
    if (!invite) return setError('Paste an invite link (…/room/…) or a room slug.');
    // Asked for here, on this site: the board joins without asking again.
    markJoinIntent(invite.slug);
    location.assign(`/room/${encodeURIComponent(invite.slug)}${invite.passcode ? `?passcode=${encodeURIComponent(invite.passcode)}` : ''}`);
  };
  return h(Section, { id: 'join', title: 'Join a room' }, [
    h('form', { class: 'stack', onSubmit: submit }, [
      h('div', { class: 'field' }, [
        h('label', { for: 'invite' }, 'Invite link or room slug'),
        h('input', {
          id: 'invite',
          name: 'invite',
          autocomplete: 'off',
          spellcheck: false,
          autocapitalize: 'none',
          maxLength: 2048,
          value: text,
          'aria-describedby': error ? 'invite-error' : undefined,
          onInput: (e: Event) => setText((e.target as HTMLInputElement).value),
        }),
      ]),
      h('button', { type: 'submit' }, 'Join a room'),
      error ? h('p', { id: 'invite-error', class: 'message error', role: 'alert' }, error) : null,
    ]),
  ]);
}

function Developers() {
  return h('section', { class: 'developers', 'aria-labelledby': 'dev-title' }, [
    h('h2', { id: 'dev-title' }, 'For developers'),
    h(
      'p',
      null,
      'A self-hostable 3D dice rolling service: a JSON API for dice themes, dice boxes, rolls, rooms and share links, and live rooms over Socket.IO, so virtual tabletops, integrations and browser boards see every roll as it happens.',
    ),
    h('ul', null, [
      h('li', null, [h('a', { href: '/docs' }, '/docs'), ': the API reference, every endpoint with its fields and errors']),
      h('li', null, [h('a', { href: '/api/1.0/openapi.json' }, '/api/1.0/openapi.json'), ': the same as an OpenAPI 3.1 document']),
      h('li', null, [h('a', { href: '/account' }, 'Developer settings'), ': your API keys (signed in)']),
      h('li', null, ['A guest key without an account: ', h('code', null, 'POST /api/1.0/user')]),
      h('li', null, ["A room's board: ", h('code', null, '/room/{slug}'), ' (add ', h('code', null, '?overlay=1'), ' for streaming software)']),
      h('li', null, [h('a', { href: '/healthz' }, '/healthz'), ' and ', h('a', { href: '/readyz' }, '/readyz'), ': health']),
    ]),
  ]);
}

function App() {
  const [client, setClient] = useState<DiceClient | null>(null);
  const [me, setMe] = useState<User | null>(null);
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    // Only a key this browser already has: looking at the page makes no guest.
    void (async () => {
      try {
        // A kept key the API refuses (revoked in the settings, say) is forgotten; signed in, the session
        // gets a new one (one more try).
        for (let attempt = 0; attempt < 2; attempt++) {
          const key = await pageKey();
          if (!key) return;
          const c = new DiceClient({ baseUrl: '', apiKey: key });
          try {
            setMe(await c.me());
            setClient(c);
            return;
          } catch (err) {
            if (!(err instanceof ApiError && err.status === 401)) return;
            forgetPageKey(key);
          }
        }
      } catch {
        // No key to be had: the page still offers everything, and creating a room makes one.
      } finally {
        setLoading(false);
      }
    })();
  }, []);

  return h('div', { class: 'layout' }, [
    h(Header, { me }),
    h('main', { class: 'content' }, [
      h('h1', null, 'Roll dice together'),
      h('p', { class: 'lead' }, 'Create a room, send its invite link to your players, and everyone sees every roll on the same table, live.'),
      h(CreateRoom, null),
      h(MyRooms, { client, me, loading }),
      h(JoinRoom, null),
      h(Developers, null),
    ]),
  ]);
}

render(h(App, null), root);
