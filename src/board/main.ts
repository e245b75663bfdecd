/**
 * The browser dice board (GET /board/{slug}): sign in with an API key (or as a guest), join the room,
 * then show it live: participants and presence, a roll form, and every roll as 3D dice plus a list.
 *
 * URL options: `?overlay=1` (transparent, table only: for streaming software); in the fragment, which
 * never reaches a server log, `#key=dk_...&passcode=...` sign in without typing (overlays).
 */
import { ApiError, DiceClient, type Participant, type Roll, type RoomSocket, type Room, type User } from '../client';
import { DiceTable } from './dice3d';
import { diceOfPlainSum, equationOf, PICKER_DICE } from './picker';
import { $, diceViews, el, renderLastRollCard, renderParticipants, renderRoll } from './view';

const KEY_STORAGE = 'openDice.apiKey';
const MAX_LISTED_ROLLS = 100;
const LAST_ROLL_CARDS = 3;

const slug = document.body.dataset.slug ?? '';
const overlay = document.documentElement.classList.contains('overlay');
const fragment = new URLSearchParams(location.hash.slice(1));
const query = new URLSearchParams(location.search);
const passcodeStorage = `openDice.passcode.${slug}`;

const state = {
  client: null as DiceClient | null,
  me: null as User | null,
  room: null as Room | null,
  socket: null as RoomSocket | null,
  online: new Set<string>(),
  rolls: new Map<string, Roll>(),
  /** rolls already thrown on the table: each is thrown once, however it arrives */
  thrown: new Set<string>(),
  table: null as DiceTable | null,
  passcode: fragment.get('passcode') ?? query.get('passcode') ?? sessionStorage.getItem(passcodeStorage),
  counts: {} as Record<string, number>,
  rejoins: 0,
  /** the room was deleted: nothing to reconnect to */
  ended: false,
};

type Screen = 'login' | 'passcode' | 'board' | 'fatal' | 'loading';

function show(screen: Screen, message = '') {
  $('login').hidden = screen !== 'login';
  $('passcode').hidden = screen !== 'passcode';
  $('board').hidden = screen !== 'board' && screen !== 'loading';
  $('fatal').hidden = screen !== 'fatal';
  if (screen === 'fatal') $('fatal').textContent = message;
  document.body.dataset.screen = screen;
}

function setConnection(label: string, kind: 'online' | 'offline' | 'error') {
  const badge = $('connection');
  badge.textContent = label;
  badge.dataset.state = kind;
}

function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return (err as Error)?.message || 'Something went wrong.';
}

// Signing in

function storedKey(): string | null {
  return fragment.get('key') ?? localStorage.getItem(KEY_STORAGE);
}

async function signIn(key: string, remember: boolean) {
  const client = new DiceClient({ baseUrl: '', apiKey: key });
  try {
    state.me = await client.me();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      localStorage.removeItem(KEY_STORAGE);
      show('login');
      $('login-error').textContent = err.message;
      return;
    }
    show('fatal', messageOf(err));
    return;
  }
  if (remember) localStorage.setItem(KEY_STORAGE, key);
  state.client = client;
  $('me').textContent = state.me.username;
  $('sign-out').hidden = false;
  void loadThemes();
  await joinAndConnect();
}

function wireLogin() {
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const key = ($('key-input') as HTMLInputElement).value.trim();
    if (!key) {
      $('login-error').textContent = 'Paste an API key first.';
      return;
    }
    $('login-error').textContent = '';
    void signIn(key, true);
  });
  $('guest').addEventListener('click', async () => {
    const button = $('guest') as HTMLButtonElement;
    button.disabled = true;
    $('login-error').textContent = '';
    try {
      const key = await new DiceClient({ baseUrl: '' }).createGuest();
      await signIn(key, true);
    } catch (err) {
      $('login-error').textContent = messageOf(err);
    } finally {
      button.disabled = false;
    }
  });
  $('sign-out').addEventListener('click', () => {
    localStorage.removeItem(KEY_STORAGE);
    state.socket?.disconnect();
    location.hash = '';
    location.reload();
  });
}

// Joining

async function joinAndConnect() {
  const client = state.client!;
  let room: Room;
  try {
    room = await client.joinRoom(slug, state.passcode);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) {
      // Already a participant: fine, fetch the room as it is.
      try {
        room = await client.getRoom(slug, state.passcode);
      } catch (inner) {
        return joinFailed(inner);
      }
    } else {
      return joinFailed(err);
    }
  }
  if (state.passcode) sessionStorage.setItem(passcodeStorage, state.passcode);
  state.room = room;
  show('board');
  renderRoom();
  await loadHistory();
  connect();
}

function joinFailed(err: unknown) {
  if (err instanceof ApiError && err.status === 403) {
    show('passcode');
    $('passcode-reason').textContent = err.message;
    sessionStorage.removeItem(passcodeStorage);
    ($('passcode-input') as HTMLInputElement).focus();
    return;
  }
  if (err instanceof ApiError && err.status === 401) {
    localStorage.removeItem(KEY_STORAGE);
    show('login');
    $('login-error').textContent = err.message;
    return;
  }
  if (err instanceof ApiError && err.status === 404) return show('fatal', `There is no room "${slug}" (or it was deleted).`);
  show('fatal', messageOf(err));
}

function wirePasscode() {
  $('passcode-form').addEventListener('submit', (event) => {
    event.preventDefault();
    state.passcode = ($('passcode-input') as HTMLInputElement).value.trim() || null;
    $('passcode-error').textContent = '';
    void joinAndConnect();
  });
}

// The room, live

function renderRoom() {
  const room = state.room!;
  $('room-name').textContent = room.name;
  document.title = `${room.name} · dice board`;
  renderParticipants($('participants'), room, state.online, state.me?.uuid ?? null);
}

/** The latest rolls of the room (GET /room/{slug}/roll), oldest first, listed without throwing them. */
async function loadHistory() {
  try {
    const page = await state.client!.listRoomRolls(slug, { limit: 20 });
    const rolls = [...page.data].sort((a, b) => a.created_at.localeCompare(b.created_at));
    for (const roll of rolls) {
      state.thrown.add(roll.uuid);
      upsertRoll(roll, false);
    }
  } catch {
    // History is a convenience: the live feed works without it.
  }
}

function connect() {
  state.socket?.disconnect();
  const latest = [...state.rolls.values()].sort((a, b) => a.created_at.localeCompare(b.created_at)).at(-1);
  const socket = state.client!.connectRoom(slug, { passcode: state.passcode, since: latest?.uuid ?? null });
  state.socket = socket;
  setConnection('connecting…', 'offline');

  socket.on('connect', () => {
    state.rejoins = 0;
    setConnection('live', 'online');
    if (state.me) state.online.add(state.me.uuid);
    renderRoom();
  });
  socket.on('disconnect', (reason) => {
    setConnection('offline', 'offline');
    state.online.clear();
    renderRoom();
    // The server let us go (removed from the room, passcode changed): join again, which asks for
    // the new passcode if there is one. Transport failures reconnect by themselves.
    if (reason === 'io server disconnect' && !state.ended && state.rejoins++ < 3) setTimeout(() => void joinAndConnect(), 1000);
  });
  socket.on('connect_error', (err: Error & { data?: { message?: string } }) => {
    const text = err.data?.message ?? err.message;
    setConnection('not connected', 'error');
    if (err.message === 'forbidden') return joinFailed(new ApiError(403, 'forbidden', text));
    if (err.message === 'unauthorized') return joinFailed(new ApiError(401, 'unauthorized', text));
    if (err.message === 'not_found') return joinFailed(new ApiError(404, 'not_found', text));
    $('stage-note').hidden = false;
    $('stage-note').textContent = text;
  });

  socket.on('RoomUpdateEvent', ({ data }) => {
    state.room = data;
    renderRoom();
    rerenderRolls();
  });
  socket.on('RoomDeleteEvent', () => {
    state.ended = true;
    socket.disconnect();
    show('fatal', 'This room was deleted.');
  });
  socket.on('ParticipantConnectEvent', ({ data }: { data: Participant }) => {
    state.online.add(data.user.uuid);
    renderRoom();
  });
  socket.on('ParticipantDisconnectEvent', ({ data }: { data: Participant }) => {
    if (data.user.uuid !== state.me?.uuid) state.online.delete(data.user.uuid);
    renderRoom();
  });
  socket.on('RollCreateEvent', ({ data }) => upsertRoll(data, true));
  socket.on('RollUpdateEvent', ({ data }) => upsertRoll(data, false));
  socket.on('RollDeleteEvent', ({ data }) => removeRoll(data.uuid));
  // The server may have missed sending us rolls: the client reconnects with `since` by itself and
  // the missed rolls arrive as RollCreateEvent (upsertRoll shows each roll once, by uuid). Without
  // a roll to give as `since` there is no replay: read the history again once back.
  socket.on('ReplayRequiredEvent', () => {
    setConnection('catching up…', 'offline');
    if (!state.rolls.size) socket.once('connect', () => void loadHistory());
  });
}

// Rolls

function upsertRoll(roll: Roll, animate: boolean) {
  state.rolls.set(roll.uuid, roll);
  const list = $('rolls');
  const item = renderRoll(roll, state.room);
  const existing = list.querySelector(`li[data-roll-uuid="${CSS.escape(roll.uuid)}"]`);
  if (existing) existing.replaceWith(item);
  else list.prepend(item);
  while (list.children.length > MAX_LISTED_ROLLS) {
    const last = list.lastElementChild as HTMLElement;
    state.rolls.delete(last.dataset.rollUuid ?? '');
    last.remove();
  }
  if (animate && !state.thrown.has(roll.uuid)) {
    state.thrown.add(roll.uuid);
    state.table?.throwRoll(roll.uuid, diceViews(roll, state.room), roll.direction, roll.velocity);
  } else {
    state.table?.updateRoll(roll.uuid, diceViews(roll, state.room));
  }
  renderLastRolls();
}

function removeRoll(uuid: string) {
  state.rolls.delete(uuid);
  $('rolls').querySelector(`li[data-roll-uuid="${CSS.escape(uuid)}"]`)?.remove();
  state.table?.removeRoll(uuid);
  renderLastRolls();
}

/** Colours and names follow the room: redraw the list when participants change. */
function rerenderRolls() {
  for (const roll of state.rolls.values()) {
    $('rolls').querySelector(`li[data-roll-uuid="${CSS.escape(roll.uuid)}"]`)?.replaceWith(renderRoll(roll, state.room));
  }
  renderLastRolls();
}

function renderLastRolls() {
  const latest = [...state.rolls.values()].sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, LAST_ROLL_CARDS);
  $('last-roll').replaceChildren(...latest.map((r) => renderLastRollCard(r, state.room)));
}

// The roll form

function wireRollForm() {
  const picker = $('picker');
  const equation = $('equation') as HTMLInputElement;
  const renderPicker = () => {
    picker.replaceChildren(
      ...PICKER_DICE.map((die) => {
        const count = state.counts[die] ?? 0;
        const button = el('button', { text: die, attrs: { type: 'button', 'data-die': die, title: `Add a ${die} (right-click removes one)` } });
        if (count) button.appendChild(el('span', { className: 'count', text: String(count) }));
        return button;
      }),
    );
  };
  picker.addEventListener('click', (event) => {
    const die = (event.target as HTMLElement).closest('button')?.dataset.die;
    if (!die) return;
    state.counts[die] = Math.min(99, (state.counts[die] ?? 0) + 1);
    equation.value = equationOf(state.counts);
    renderPicker();
  });
  picker.addEventListener('contextmenu', (event) => {
    const die = (event.target as HTMLElement).closest('button')?.dataset.die;
    if (!die) return;
    event.preventDefault();
    state.counts[die] = Math.max(0, (state.counts[die] ?? 0) - 1);
    equation.value = equationOf(state.counts);
    renderPicker();
  });
  equation.addEventListener('input', () => {
    // A typed equation wins over the picker's counts.
    state.counts = {};
    renderPicker();
  });
  $('clear-picker').addEventListener('click', () => {
    state.counts = {};
    equation.value = '';
    $('roll-error').textContent = '';
    renderPicker();
  });
  renderPicker();

  $('roll-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = equation.value.trim();
    const theme = ($('theme') as HTMLSelectElement).value || 'standard';
    const hidden = ($('hidden-roll') as HTMLInputElement).checked;
    const error = $('roll-error');
    error.textContent = '';
    if (!text) {
      error.textContent = 'Pick some dice or write an equation (like 2d6+3).';
      return;
    }
    let body: Parameters<DiceClient['createRoll']>[0];
    if (hidden) {
      const dice = diceOfPlainSum(text, theme, true);
      if (!dice) {
        error.textContent = 'Hidden rolls take plain sums (like 2d6+1d20+3), without operators.';
        return;
      }
      body = { dice, room: slug };
    } else {
      body = { equation: text, theme, room: slug };
    }
    const button = $('roll-button') as HTMLButtonElement;
    button.disabled = true;
    try {
      const roll = await state.client!.createRoll(body);
      // The socket brings it too; whichever comes first is shown, the other only updates it.
      upsertRoll(roll, true);
    } catch (err) {
      error.textContent = messageOf(err);
    } finally {
      button.disabled = false;
    }
  });
}

async function loadThemes() {
  try {
    const page = await state.client!.listThemes({ per_page: 100 });
    const select = $('theme') as HTMLSelectElement;
    const ids = page.data.map((t) => t.id);
    if (!ids.length) return;
    select.replaceChildren(...ids.map((id) => el('option', { text: id, attrs: { value: id } })));
    select.value = ids.includes('standard') ? 'standard' : ids[0]!;
  } catch {
    // The standard theme stays selected.
  }
}

// Start

function start() {
  wireLogin();
  wirePasscode();
  wireRollForm();
  state.table = DiceTable.create($('dice-canvas') as HTMLCanvasElement, overlay);
  if (!state.table) {
    $('stage-note').hidden = false;
    $('stage-note').textContent = 'No WebGL here: the dice show in the list.';
  }
  // For tests and curious people: is the table still, and can this browser draw it?
  (window as unknown as { __board: unknown }).__board = {
    webgl: Boolean(state.table),
    atRest: () => state.table?.atRest() ?? true,
    rolls: () => state.rolls.size,
  };
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(slug)) return show('fatal', 'This is not a room address.');
  const key = storedKey();
  if (!key) return show('login');
  show('loading');
  void signIn(key, !fragment.get('key'));
}

start();
