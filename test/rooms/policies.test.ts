import test from 'ava';
import type { ParticipantRecord as Participant, RoomRecord as Room } from '../../src/rooms/store/records';
import {
  authorizeJoin,
  authorizeParticipantChange,
  authorizeRoomAccess,
  authorizeRoomOwner,
  canAccessRoom,
  canJoinRoom,
  canManageParticipant,
  isParticipant,
} from '../../src/rooms/policy';

// Plain objects shaped like loaded models: the policies are pure and read only these fields.
const OWNER = 1;
const MEMBER = 2;
const STRANGER = 3;
const member = { id: 20, userId: MEMBER } as Participant;
const ownerSeat = { id: 10, userId: OWNER } as Participant;
const room = (isPublic: boolean, passcode: string | null = 'secret-1') =>
  ({ userId: OWNER, isPublic, passcode, participants: [ownerSeat, member] }) as unknown as Room;

test('viewing: public to all; private to owner, participants and passcode holders', (t) => {
  t.true(canAccessRoom(room(true), { id: STRANGER }));
  const priv = room(false);
  t.true(canAccessRoom(priv, { id: OWNER }));
  t.true(canAccessRoom(priv, { id: MEMBER }));
  t.false(canAccessRoom(priv, { id: STRANGER }));
  t.false(canAccessRoom(priv, { id: STRANGER }, 'secret-2'));
  t.true(canAccessRoom(priv, { id: STRANGER }, 'secret-1'));
  t.throws(() => authorizeRoomAccess(priv, { id: STRANGER }), { message: /private/ });
});

test('the owner may view a private room it left, and join it without the passcode', (t) => {
  const left = { ...room(false), participants: [member] } as unknown as Room;
  t.false(isParticipant(left, OWNER));
  t.true(canAccessRoom(left, { id: OWNER }));
  t.true(canJoinRoom(left, { id: OWNER }));
  t.false(canJoinRoom(left, { id: STRANGER }));
  t.true(canJoinRoom(left, { id: STRANGER }, 'secret-1'));
  t.throws(() => authorizeJoin(left, { id: STRANGER }, 'nope'), { message: /not right/ });
});

test('a private room without a passcode is opened by no passcode at all', (t) => {
  const odd = room(false, null);
  t.false(canAccessRoom(odd, { id: STRANGER }, ''));
  t.false(canJoinRoom(odd, { id: STRANGER }, ''));
});

test('owner-only actions and participant management', (t) => {
  t.notThrows(() => authorizeRoomOwner(room(true), { id: OWNER }));
  const err = t.throws(() => authorizeRoomOwner(room(true), { id: MEMBER }));
  t.is((err as unknown as { status: number }).status, 403);
  t.true(canManageParticipant(room(true), member, { id: MEMBER }));
  t.true(canManageParticipant(room(true), member, { id: OWNER }));
  t.false(canManageParticipant(room(true), ownerSeat, { id: MEMBER }));
  t.false(canManageParticipant(room(true), member, { id: STRANGER }));
  t.throws(() => authorizeParticipantChange(room(true), member, { id: STRANGER }, 'remove'), { message: /remove/ });
});

test('isParticipant refuses a room loaded without its participants (a bug, not a no)', (t) => {
  t.throws(() => isParticipant({ userId: OWNER } as Room, OWNER));
});
