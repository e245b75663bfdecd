import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { RoomProps } from './people';
import { Confirm, Feedback, Field, useAction } from './ui';

/**
 * The owner's controls, each calling the API as any client would (the API decides; a refusal's
 * sentence shows beside the control): rename, public or private, a new passcode, the background
 * image, clearing the table, deleting the room.
 */

function Rename(props: RoomProps) {
  const { room, client } = props;
  const [name, setName] = useState(room.name);
  const action = useAction();
  return h('div', { class: 'control' }, [
    h(
      'form',
      {
        class: 'inline',
        onSubmit: (e: Event) => {
          e.preventDefault();
          void action.run(async () => {
            const updated = await client.updateRoom(room.slug, { name });
            props.setRoom(updated);
            setName(updated.name);
            return 'Renamed.';
          });
        },
      },
      [
        h(Field, { id: 'room-name', label: 'Room name', value: name, onInput: setName, maxLength: 255, describedBy: 'rename-error' }),
        h('button', { type: 'submit', disabled: action.busy }, 'Rename'),
      ],
    ),
    h(Feedback, { id: 'rename-error', action }),
  ]);
}

const EVICTION = 'Every player but you leaves the room at once (their boards close) and must join again through the new invite link.';

/**
 * Public or private, and the passcode. Going private, or a new passcode, removes every participant but
 * the owner (the API's rule: a leaked passcode stops admitting anyone, and whoever got in with it is
 * out): the page says so before it is confirmed. Going public removes nobody.
 */
function Access(props: RoomProps) {
  const { room, client } = props;
  const [asking, setAsking] = useState<'private' | 'passcode' | null>(null);
  const [passcode, setPasscode] = useState('');
  const action = useAction();
  const change = (body: { is_public?: boolean; passcode?: string | null }, said: string) =>
    action.run(async () => {
      props.setRoom(await client.updateRoom(room.slug, body));
      setAsking(null);
      setPasscode('');
      return said;
    });
  const passcodeField = (label: string) =>
    h(Field, {
      id: 'new-passcode',
      label,
      value: passcode,
      onInput: setPasscode,
      maxLength: 64,
      hint: 'Leave it empty for a generated one. 4 to 64 letters, digits, or . _ ~ -',
      describedBy: 'access-error',
    });

  return h('div', { class: 'control', role: 'group', 'aria-labelledby': 'access-title' }, [
    h('h3', { id: 'access-title' }, 'Who may join'),
    h(
      'p',
      null,
      room.is_public
        ? 'Public: anyone with the link can join.'
        : ['Private: joining needs the passcode ', h('code', { class: 'passcode' }, room.passcode ?? ''), ' (the invite link carries it).'],
    ),
    asking === 'private'
      ? h(
          Confirm,
          {
            id: 'make-private',
            question: 'Make the room private?',
            confirm: 'Make private',
            busy: action.busy,
            onConfirm: () => void change({ is_public: false, passcode: passcode || null }, 'The room is private.'),
            onCancel: () => setAsking(null),
          },
          [h('p', { class: 'warning' }, EVICTION), passcodeField('Passcode')],
        )
      : asking === 'passcode'
        ? h(
            Confirm,
            {
              id: 'change-passcode',
              question: 'Change the passcode?',
              confirm: 'Change passcode',
              busy: action.busy,
              onConfirm: () => void change({ passcode: passcode || null }, 'The passcode is changed.'),
              onCancel: () => setAsking(null),
            },
            [h('p', { class: 'warning' }, EVICTION), passcodeField('New passcode')],
          )
        : h(
            'div',
            { class: 'row' },
            room.is_public
              ? [h('button', { type: 'button', onClick: () => (action.reset(), setAsking('private')) }, 'Make private')]
              : [
                  h('button', { type: 'button', onClick: () => (action.reset(), setAsking('passcode')) }, 'Change passcode'),
                  h(
                    'button',
                    { type: 'button', class: 'secondary', disabled: action.busy, onClick: () => void change({ is_public: true }, 'The room is public.') },
                    'Make public',
                  ),
                ],
          ),
    h(Feedback, { id: 'access-error', action }),
  ]);
}

function Background(props: RoomProps) {
  const { room, client } = props;
  const [file, setFile] = useState<File | null>(null);
  const action = useAction();
  return h('div', { class: 'control', role: 'group', 'aria-labelledby': 'background-title' }, [
    h('h3', { id: 'background-title' }, 'Background image'),
    room.bg_file_path
      ? h('img', { class: 'background', src: room.bg_file_path, alt: 'The room\u2019s background image' })
      : h('p', { class: 'hint' }, 'No background: the board shows its felt.'),
    h(
      'form',
      {
        class: 'inline',
        onSubmit: (e: Event) => {
          e.preventDefault();
          void action.run(async () => {
            if (!file) throw new Error('Choose an image first.');
            props.setRoom(await client.setRoomBackground(room.slug, file, file.name));
            (e.target as HTMLFormElement).reset();
            setFile(null);
            return 'Background uploaded.';
          });
        },
      },
      [
        h('div', { class: 'field' }, [
          h('label', { for: 'background-file' }, 'Image (PNG, JPEG, WebP or GIF, up to 5 MB)'),
          h('input', {
            id: 'background-file',
            type: 'file',
            accept: 'image/png,image/jpeg,image/webp,image/gif',
            'aria-describedby': 'background-error',
            onChange: (e: Event) => setFile((e.target as HTMLInputElement).files?.[0] ?? null),
          }),
        ]),
        h('button', { type: 'submit', disabled: action.busy }, 'Upload background'),
      ],
    ),
    room.bg_file_path
      ? h('div', { class: 'row' }, [
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              disabled: action.busy,
              onClick: () =>
                void action.run(async () => {
                  props.setRoom(await client.updateRoom(room.slug, { bg_file_path: null }));
                  return 'Background removed.';
                }),
            },
            'Remove background',
          ),
        ])
      : null,
    h(Feedback, { id: 'background-error', action }),
  ]);
}

/** One button behind a confirmation: clearing the table, deleting the room. */
function Drastic(props: { id: string; title: string; button: string; question: string; consequence: string; run: () => Promise<string | void> }) {
  const [asking, setAsking] = useState(false);
  const action = useAction();
  return h('div', { class: 'control', role: 'group', 'aria-labelledby': `${props.id}-title` }, [
    h('h3', { id: `${props.id}-title` }, props.title),
    asking
      ? h(
          Confirm,
          {
            id: props.id,
            question: props.question,
            confirm: props.button,
            danger: true,
            busy: action.busy,
            onConfirm: () =>
              void action.run(async () => {
                const said = await props.run();
                setAsking(false);
                return said;
              }),
            onCancel: () => setAsking(false),
          },
          h('p', { class: 'warning' }, props.consequence),
        )
      : h('div', { class: 'row' }, [h('button', { type: 'button', class: 'danger', onClick: () => (action.reset(), setAsking(true)) }, props.button)]),
    h(Feedback, { id: `${props.id}-error`, action }),
  ]);
}

export function OwnerControls(props: RoomProps & { onDeleted: () => void }) {
  const { room, client } = props;
  return h('section', { class: 'card', 'aria-labelledby': 'owner-title' }, [
    h('h2', { id: 'owner-title' }, 'Room settings'),
    h(Rename, props),
    h(Access, props),
    h(Background, props),
    h(Drastic, {
      id: 'clear-table',
      title: 'The table',
      button: 'Clear the table',
      question: 'Clear the table?',
      consequence: 'Every roll made in this room is deleted, for everyone. This cannot be undone.',
      run: async () => {
        await client.clearRoomTable(room.slug);
        return 'The table is cleared.';
      },
    }),
    h(Drastic, {
      id: 'delete-room',
      title: 'Delete the room',
      button: 'Delete the room',
      question: `Delete "${room.name}"?`,
      consequence: 'The room, its players and its rolls are gone for everyone; its links stop working. This cannot be undone.',
      run: async () => {
        await client.deleteRoom(room.slug);
        props.onDeleted();
      },
    }),
  ]);
}
