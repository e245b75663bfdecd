/**
 * The browser dice board (GET /board/{slug}): sign in with an API key (or as a guest), join the room,
 * then show it live: participants and presence, a roll form, and every roll as 3D dice plus a list.
 *
 * URL options: `?overlay=1` (transparent, table only: for streaming software); in the fragment, which
 * never reaches a server log, `#key=dk_...&passcode=...` sign in without typing (overlays).
 * The stream address (`/room/{slug}/stream?key=`, src/pages/stream/) hands its key over the same way.
 */
import { ApiError, DiceClient, lastSeq, type Participant, type Room } from '../client';
import { DiceTable } from './dice/table';
import { configureThemes } from './dice/themes';
import { loadThemes, wireRollForm } from './rollForm';
import { renderTray, wireTray } from './tray';
import { removeRoll, rerenderRolls, upsertRoll } from './rollList';
import { wireStats } from './stats';
import { fragment, overlay, passcodeStorage, query, slug, state } from './state';
import { keepTableBelowCards, noteThemeFailure, wireSounds } from './tableUi';
import { $, diceViews, messageOf, onEvent, renderParticipants } from './view';
import { ensurePageKey, forgetPageKey, GUEST_KEY_STORAGE as KEY_STORAGE, pageKey, pageSession } from '../pages/client/pageKey';
import { takeJoinIntent } from '../pages/client/invite';
import { forgetStreamKey, handedStreamKey } from '../pages/stream/handover';
import { focusInviteIfNew, renderInvite, wireInvite } from './invitePanel';

type Screen = 'login' | 'passcode' | 'join' | 'board' | 'fatal' | 'loading';

function show(screen: Screen, message = '') {
  $('login').hidden = screen !== 'login';
  $('passcode').hidden = screen !== 'passcode';
  $('join').hidden = screen !== 'join';
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

// Signing in

/**
 * How the page may go into a room the user is not a player of yet:
 * - 'join': the person in front of it asked for this room: they typed a key or made a guest here, or
 *   the URL carries the key (whoever wrote that URL holds the key, so it is that key's owner asking);
 * - 'ask': the key is the one this browser keeps, and the page may have been opened by anyone (a link,
 *   another site): show the question first, and join only on its Join button.
 */
type Entry = 'join' | 'ask';

/** The key the page signed in with (a typed one, the kept guest's, or the session's page key). */
let currentKey: string | null = null;

async function signIn(key: string, remember: boolean, entry: Entry, retry = true) {
  const client = new DiceClient({ baseUrl: '', apiKey: key });
  try {
    state.me = await client.me();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      // A kept key the API refuses (revoked, expired): forget it; signed in, the session gets a new one.
      forgetPageKey(key);
      forgetStreamKey();
      const next = retry && pageSession() ? await pageKey().catch(() => null) : null;
      if (next && next !== key) return signIn(next, false, entry, false);
      show('login');
      $('login-error').textContent = err.message;
      return;
    }
    show('fatal', messageOf(err));
    return;
  }
  if (remember) localStorage.setItem(KEY_STORAGE, key);
  currentKey = key;
  state.client = client;
  configureThemes({ readTheme: (id) => client.getTheme(id), apiKey: key, report: noteThemeFailure });
  $('me').textContent = state.me.username;
  // Signed in on this site, the board is the account's: "Change key" would only come back to it.
  $('sign-out').hidden = Boolean(pageSession());
  void loadThemes();
  await (entry === 'join' ? joinAndConnect() : openOrAsk());
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
    void signIn(key, true, 'join');
  });
  $('guest').addEventListener(
    'click',
    onEvent(async () => {
      const button = $('guest') as HTMLButtonElement;
      button.disabled = true;
      $('login-error').textContent = '';
      try {
        const key = await new DiceClient({ baseUrl: '' }).createGuest();
        await signIn(key, true, 'join');
      } catch (err) {
        $('login-error').textContent = messageOf(err);
      } finally {
        button.disabled = false;
      }
    }),
  );
  $('sign-out').addEventListener('click', () => {
    localStorage.removeItem(KEY_STORAGE);
    state.socket?.disconnect();
    // /room/{slug} would make a new guest at once: the key form is /board/{slug}'s.
    if (roomAddress) return location.assign(`/board/${encodeURIComponent(slug)}`);
    location.hash = '';
    location.reload();
  });
}

// Joining

/**
 * The room as it is (GET /room/{slug}): entered at once when this user is already a player of it,
 * otherwise the question "Join ...?" (never in overlay mode, which any site may frame: there the page
 * only says how to join). A private room without its passcode asks for that first (the passcode form
 * is itself the question).
 */
async function openOrAsk() {
  let room: Room;
  try {
    room = await state.client!.getRoom(slug, state.passcode);
  } catch (err) {
    return joinFailed(err);
  }
  if (room.participants.some((p) => p.user.uuid === state.me?.uuid)) return enterRoom(room);
  if (overlay)
    return show(
      'fatal',
      `You are not a player of "${room.name}" yet: join it on its board (this page without ?overlay=1), or give the overlay a key of a player (#key=...).`,
    );
  $('join-title').textContent = `Join "${room.name}"?`;
  show('join');
  ($('join-confirm') as HTMLButtonElement).focus();
}

function wireJoinQuestion() {
  $('join-confirm').addEventListener('click', () => {
    const button = $('join-confirm') as HTMLButtonElement;
    button.disabled = true;
    void joinAndConnect().finally(() => (button.disabled = false));
  });
  $('join-cancel').addEventListener('click', () => show('fatal', 'You did not join this room. Reload the page to be asked again.'));
}

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
  await enterRoom(room);
}

async function enterRoom(room: Room) {
  if (state.passcode) sessionStorage.setItem(passcodeStorage, state.passcode);
  state.room = room;
  show('board');
  renderRoom();
  focusInviteIfNew();
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
    // The key stopped working (revoked: a sign-out elsewhere, the settings page): forget that one only.
    if (currentKey) forgetPageKey(currentKey);
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
  renderInvite(room);
  renderTray();
  // Streamers key the overlay's page out: no table image there.
  state.table?.setBackground(overlay ? null : room.bg_file_path);
}

/** The latest rolls of the room (GET /room/{slug}/roll), oldest first, listed without throwing them. */
async function loadHistory() {
  try {
    const page = await state.client!.listRoomRolls(slug, { limit: 20 });
    // Rolls already here (heard live while this loaded) stay as they are, thrown or not.
    const shown = state.rolls.size > 0;
    const rolls = page.data.filter((roll) => !state.rolls.has(roll.uuid)).sort((a, b) => a.created_at.localeCompare(b.created_at));
    for (const roll of rolls) {
      state.thrown.add(roll.uuid);
      upsertRoll(roll, false);
    }
    // The latest roll lies where its throw ended, as it does for those who saw it thrown.
    const latest = rolls.at(-1);
    if (latest && !shown) void state.table?.throwRoll(latest.uuid, diceViews(latest, state.room), latest.direction, latest.velocity, false);
  } catch {
    // History is a convenience: the live feed works without it.
  }
}

function connect() {
  // A new socket (a rejoin) goes on from the old one's seq: the server replays exactly what it missed.
  const sinceSeq = state.socket ? lastSeq(state.socket) : null;
  state.socket?.disconnect();
  const latest = [...state.rolls.values()].sort((a, b) => a.created_at.localeCompare(b.created_at)).at(-1);
  const socket = state.client!.connectRoom(slug, { passcode: state.passcode, since: latest?.uuid ?? null, sinceSeq });
  state.socket = socket;
  setConnection('connecting…', 'offline');
  // With neither a roll nor a seq to replay from (an empty history), a roll made between the history's
  // read and this socket's welcome would reach neither: read the history again once welcomed. From the
  // welcome on, every roll arrives live.
  if (!latest && sinceSeq === null) socket.once('RoomUpdateEvent', () => void loadHistory());

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
    // The server let us go (removed from the room, passcode changed): look again, which asks for the
    // new passcode if there is one, and asks before joining again a room we were removed from.
    // Transport failures reconnect by themselves.
    if (reason === 'io server disconnect' && !state.ended && state.rejoins++ < 3) setTimeout(() => void openOrAsk(), 1000);
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
  // The server may have missed sending us rolls: the client reconnects with `since_seq` (and `since`)
  // by itself and the missed events arrive in order (upsertRoll still shows each roll once, by uuid).
  // Without a seq nor a roll to give there is no replay: read the history again once back.
  socket.on('ReplayRequiredEvent', () => {
    setConnection('catching up…', 'offline');
    if (!state.rolls.size && lastSeq(socket) === null) socket.once('connect', () => void loadHistory());
  });
}

// Start

function start() {
  wireLogin();
  wirePasscode();
  wireJoinQuestion();
  wireInvite(slug);
  wireRollForm();
  wireTray();
  wireStats();
  state.table = DiceTable.create($('dice-canvas') as HTMLCanvasElement, overlay);
  wireSounds();
  keepTableBelowCards();
  if (!state.table) {
    $('stage-note').hidden = false;
    $('stage-note').textContent = 'No WebGL here: the dice show in the list.';
  }
  // For tests and curious people: is the table still, and can this browser draw it?
  (window as unknown as { __board: unknown }).__board = {
    webgl: Boolean(state.table),
    atRest: () => state.table?.atRest() ?? true,
    dice: () => state.table?.snapshot() ?? [],
    stats: () => ({ ...state.table?.stats }),
    sound: () => ({ state: state.sounds?.state() ?? 'none', muted: state.sounds?.muted ?? true, played: { ...state.sounds?.played } }),
    background: () => state.table?.background() ?? null,
    screenOf: (x: number, y: number, z: number) => state.table?.screenOf(x, y, z) ?? null,
    rolls: () => state.rolls.size,
  };
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(slug)) return show('fatal', 'This is not a room address.');
  // The room's own page (src/pages/room): its invite link, players and settings.
  const roomPage = $('room-page') as HTMLAnchorElement;
  roomPage.href = `/room/${slug}/settings`;
  roomPage.hidden = false;
  const given = fragment.get('key') ?? handedStreamKey();
  const invited = !overlay && (Boolean(addressPasscode) || takeJoinIntent(slug));
  show('loading');
  if (given) return void signIn(given, false, 'join');
  void (async () => {
    // The signed-in session's page key, else the guest key this browser keeps (src/pages/client/pageKey.ts).
    const key = await pageKey().catch(() => null);
    if (key) return signIn(key, false, invited ? 'join' : 'ask');
    // No key at all. On a room's address (an invite, a room's link) a new guest joins at once: a new
    // guest has nothing of anyone's to show the room. Never in the overlay (any site may frame it), and
    // /board/{slug} offers the key form first, as it always did.
    if (overlay || !roomAddress) return show('login');
    try {
      await signIn(await ensurePageKey(), false, 'join');
    } catch (err) {
      show('login');
      $('login-error').textContent = messageOf(err);
    }
  })();
}

/**
 * /room/{slug} (the address invites and dddice's integrations use), rather than /board/{slug}: a
 * browser without any key becomes a guest there instead of being asked for a key.
 */
const roomAddress = document.body.dataset.mode === 'room';

/**
 * The passcode the address carried (an invite link: `?passcode=`, or `#passcode=` as overlays carry
 * it), read once by state.ts. It proves that whoever made the link could let people in (only the
 * room's players see it), so the page joins without asking (docs/pages.md, "Invite links"). It is
 * moved out of the address bar at once: no screenshot, shared screen or history entry keeps it (the
 * tab keeps it in sessionStorage once in).
 */
const addressPasscode = query.get('passcode') ?? fragment.get('passcode');
if (query.has('passcode') || fragment.has('passcode')) {
  const search = new URLSearchParams(query);
  search.delete('passcode');
  const hash = new URLSearchParams(fragment);
  hash.delete('passcode');
  const [q, f] = [search.toString(), hash.toString()];
  const rest = `${q ? `?${q}` : ''}${f ? `#${f}` : ''}`;
  history.replaceState(history.state, '', `${location.pathname}${rest}`);
}

start();
