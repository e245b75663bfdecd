import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { RestClient } from '../../client/rest';
import type { Participant, Room, User } from '../../client/types';
import { Confirm, Feedback, Field, useAction } from './ui';

/** The players, with the owner's Remove; and the viewer's own seat: name, colour, leaving. */

export interface RoomProps {
  room: Room;
  me: User;
  client: RestClient;
  setRoom: (room: Room) => void;
}

const HEX = /^#[0-9a-fA-F]{6}$/;

function Player(props: RoomProps & { player: Participant; owner: boolean }) {
  const { room, me, player, client } = props;
  const [asking, setAsking] = useState(false);
  const action = useAction();
  const isMe = player.user.uuid === me.uuid;
  const tags = [player.user.uuid === room.user.uuid ? 'owner' : '', isMe ? 'you' : ''].filter(Boolean);
  const id = `remove-${player.id}`;
  const remove = () =>
    action.run(async () => {
      await client.removeParticipant(room.slug, player.id);
      setAsking(false);
      props.setRoom({ ...room, participants: room.participants.filter((p) => p.id !== player.id) });
    });
  return h('li', { class: 'player' }, [
    h('div', { class: 'player-line' }, [
      // A colour reaches CSS only as #rrggbb (set through the DOM, which the page's CSP allows).
      h('span', { class: 'swatch', 'aria-hidden': 'true', style: HEX.test(player.color) ? { background: player.color } : undefined }),
      h('span', { class: 'player-name' }, player.username),
      tags.length ? h('span', { class: 'tag' }, `(${tags.join(', ')})`) : null,
      props.owner && !isMe && !asking
        ? h('button', { type: 'button', class: 'secondary small', 'aria-label': `Remove ${player.username}`, onClick: () => setAsking(true) }, 'Remove')
        : null,
    ]),
    asking
      ? h(
          Confirm,
          {
            id,
            question: `Remove ${player.username} from the room?`,
            confirm: 'Remove',
            danger: true,
            busy: action.busy,
            onConfirm: () => void remove(),
            onCancel: () => {
              setAsking(false);
              action.reset();
            },
          },
          h(
            'p',
            { class: 'hint' },
            room.is_public ? 'They may join again with the invite link.' : 'They may join again only with the passcode: change it to keep them out.',
          ),
        )
      : null,
    h(Feedback, { id: `${id}-error`, action }),
  ]);
}

export function Players(props: RoomProps) {
  const owner = props.room.user.uuid === props.me.uuid;
  return h('section', { class: 'card', 'aria-labelledby': 'players-title' }, [
    h('h2', { id: 'players-title' }, `Players (${props.room.participants.length})`),
    props.room.participants.length
      ? h(
          'ul',
          { class: 'players' },
          props.room.participants.map((p) => h(Player, { ...props, key: p.id, player: p, owner })),
        )
      : h('p', null, 'Nobody has joined yet.'),
  ]);
}

/** The viewer's own seat in the room: the name the others read, the colour of their dice, leaving. */
export function MySeat(props: RoomProps & { seat: Participant; onLeft: () => void }) {
  const { room, seat, client } = props;
  const [name, setName] = useState(seat.username);
  const [color, setColor] = useState(HEX.test(seat.color) ? seat.color.toLowerCase() : '#000000');
  const [leaving, setLeaving] = useState(false);
  const naming = useAction();
  const colouring = useAction();
  const leave = useAction();
  const owner = room.user.uuid === props.me.uuid;

  return h('section', { class: 'card', 'aria-labelledby': 'seat-title' }, [
    h('h2', { id: 'seat-title' }, 'You in this room'),
    h(
      'form',
      {
        class: 'inline',
        onSubmit: (e: Event) => {
          e.preventDefault();
          void naming.run(async () => {
            const updated = await client.updateParticipant(room.slug, seat.id, { username: name });
            props.setRoom(updated);
            setName(updated.participants.find((p) => p.id === seat.id)?.username ?? name);
            return 'Name changed.';
          });
        },
      },
      [
        h(Field, {
          id: 'seat-name',
          label: 'Your name',
          value: name,
          onInput: setName,
          maxLength: 64,
          describedBy: 'seat-name-error',
          autocomplete: 'nickname',
        }),
        h('button', { type: 'submit', disabled: naming.busy }, 'Change name'),
      ],
    ),
    h(Feedback, { id: 'seat-name-error', action: naming }),
    h(
      'form',
      {
        class: 'inline',
        onSubmit: (e: Event) => {
          e.preventDefault();
          void colouring.run(async () => {
            props.setRoom(await client.updateParticipant(room.slug, seat.id, { color }));
            return 'Colour changed.';
          });
        },
      },
      [
        h(Field, { id: 'seat-color', label: 'Your colour', type: 'color', value: color, onInput: setColor, describedBy: 'seat-color-error' }),
        h('button', { type: 'submit', disabled: colouring.busy }, 'Change colour'),
      ],
    ),
    h(Feedback, { id: 'seat-color-error', action: colouring }),
    leaving
      ? h(
          Confirm,
          {
            id: 'leave',
            question: `Leave "${room.name}"?`,
            confirm: 'Leave the room',
            danger: true,
            busy: leave.busy,
            onConfirm: () =>
              void leave.run(async () => {
                await client.removeParticipant(room.slug, seat.id);
                props.onLeft();
              }),
            onCancel: () => setLeaving(false),
          },
          h(
            'p',
            { class: 'hint' },
            owner
              ? 'You stay its owner and may come back at any time.'
              : room.is_public
                ? 'You may come back with the invite link.'
                : 'To come back you need the invite link (or the passcode).',
          ),
        )
      : h('div', { class: 'row' }, [h('button', { type: 'button', class: 'secondary', onClick: () => setLeaving(true) }, 'Leave the room')]),
    h(Feedback, { id: 'leave-error', action: leave }),
  ]);
}
