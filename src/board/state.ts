/**
 * What the board's modules share: the room it shows (from the page and its URL) and the live state
 * (who is signed in, the room, its socket, who is online, the rolls shown).
 */
import type { DiceClient, Roll, Room, RoomSocket, Theme, User } from '../client';
import type { DiceSounds } from './dice/sound';
import type { DiceTable } from './dice/table';

export const slug = document.body.dataset.slug ?? '';
export const overlay = document.documentElement.classList.contains('overlay');
export const fragment = new URLSearchParams(location.hash.slice(1));
export const query = new URLSearchParams(location.search);
export const passcodeStorage = `openDice.passcode.${slug}`;

export const state = {
  client: null as DiceClient | null,
  me: null as User | null,
  room: null as Room | null,
  socket: null as RoomSocket | null,
  online: new Set<string>(),
  rolls: new Map<string, Roll>(),
  /** rolls already thrown on the table: each is thrown once, however it arrives */
  thrown: new Set<string>(),
  table: null as DiceTable | null,
  sounds: null as DiceSounds | null,
  passcode: fragment.get('passcode') ?? query.get('passcode') ?? sessionStorage.getItem(passcodeStorage),
  counts: {} as Record<string, number>,
  /** the themes this user may roll with (GET /theme), by id: the picker offers the chosen one's dice */
  themes: new Map<string, Theme>(),
  renderPicker: () => {},
  rejoins: 0,
  /** the room was deleted: nothing to reconnect to */
  ended: false,
};
