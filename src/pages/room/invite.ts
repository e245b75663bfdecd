import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { Room } from '../../client/types';

/**
 * The invite link: `<origin>/room/{slug}?passcode=...` for a private room (whoever opens it joins at
 * once, signed in or as a new guest), without the passcode for a public one. Only those the API shows
 * the passcode (the owner, the players of a private room) can hand out a private room's link; a
 * visitor who came with a passcode in the address passes on that one.
 */
export function inviteLink(room: Room, passcodeGiven: string | null): string {
  const base = `${location.origin}/room/${encodeURIComponent(room.slug)}`;
  const passcode = room.is_public ? null : (room.passcode ?? passcodeGiven);
  return passcode ? `${base}?passcode=${encodeURIComponent(passcode)}` : base;
}

export function Invite(props: { room: Room; passcodeGiven: string | null }) {
  const [said, setSaid] = useState('');
  const link = inviteLink(props.room, props.passcodeGiven);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setSaid('Copied.');
    } catch {
      setSaid('Copying was refused: select the link and copy it.');
    }
  };
  return h('section', { class: 'card', 'aria-labelledby': 'invite-title' }, [
    h('h2', { id: 'invite-title' }, 'Invite'),
    h(
      'p',
      { class: 'hint', id: 'invite-hint' },
      props.room.is_public ? 'Anyone who opens this link joins the room.' : 'This link carries the passcode: whoever opens it joins the room at once.',
    ),
    h('div', { class: 'field' }, [
      h('label', { for: 'invite-link' }, 'Invite link'),
      h('input', {
        id: 'invite-link',
        type: 'text',
        readOnly: true,
        value: link,
        'aria-describedby': 'invite-hint',
        onFocus: (e: Event) => (e.target as HTMLInputElement).select(),
      }),
    ]),
    h('div', { class: 'row' }, [h('button', { type: 'button', onClick: copy }, 'Copy invite link'), h('span', { class: 'done', role: 'status' }, said)]),
  ]);
}
