/**
 * The wire format of the API, as a client sees it: snake_case fields, envelopes, errors.
 * These types are written by hand from the OpenAPI document (src/openapi), which the test suite keeps
 * true to the server; they import nothing from the server, so the client bundles for browsers alone.
 */

/** ISO 8601 UTC with six fractional digits and `Z`: `2026-01-02T03:04:05.123000Z`. */
export type Timestamp = string;

export interface Envelope<T> {
  type: string;
  data: T;
}

export interface PageLinks {
  first: string;
  last: string;
  prev: string | null;
  /** An absolute URL to fetch as is; null on the last page. */
  next: string | null;
}

export interface PageMeta {
  current_page: number;
  from: number | null;
  last_page: number;
  path: string;
  per_page: number;
  to: number | null;
  total: number;
}

/** A paged list: `{type: "kind[]", data, links, meta}`. */
export interface Page<T> {
  type: string;
  data: T[];
  links: PageLinks;
  meta: PageMeta;
}

/** A cursor-paged list (roll history): follow `links.next` (null at the end). */
export interface CursorPage<T> {
  type: string;
  data: T[];
  links: { first: string; last: null; prev: null; next: string | null };
  meta: { path: string; per_page: number; next_cursor: string | null };
}

export interface HistoryQuery {
  /** uuid of a roll: only rolls older than it */
  before?: string;
  /** 1 to 100 (default 20) */
  limit?: number;
  /** only the rolls with this external_id */
  external_id?: string;
}

export interface PageQuery {
  page?: number;
  per_page?: number;
}

export interface ErrorDetail {
  path: string;
  message: string;
}

/** The body of every error: `{type: "error", data: {code, message, details?}}`. */
export interface ErrorBody {
  type: 'error';
  data: { code: string; message: string; details?: ErrorDetail[] };
}

export interface User {
  uuid: string;
  username: string;
  name: string;
  is_registered: boolean;
  subscription: boolean;
  subscription_level: number;
  is_merchant: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** PATCH /user: what a user may change of their own; a field left out stays as it is. */
export interface UpdateUserBody {
  name?: string;
  /** 1 to 64 letters, digits, dots, dashes or underscores; unique regardless of case */
  username?: string;
}

/** One of your API keys, as GET /user/key lists it: never the key itself. */
export interface ApiKey {
  /** `dk_` and 8 characters: names the key (DELETE /user/key/{prefix}) */
  prefix: string;
  name: string;
  /** the key the listing request was made with */
  is_current: boolean;
  created_at: Timestamp;
}

/** A key just created (POST /user/key): the only answer that carries the whole key. */
/** POST /broadcasting/auth (docs/sdk.md): what pusher-js sends back with its pusher:subscribe. */
export interface ChannelGrant {
  /** `<app key>:<hex HMAC-SHA256>`, bound to the socket, the channel and channel_data. */
  auth: string;
  /** JSON: `user_id`, `user_info` (presence channels: the participant), `key_id`. */
  channel_data: string;
}

export interface NewApiKey extends ApiKey {
  key: string;
}

/** One die of a dice tray row: a die id (`d20`) of a theme (`dddice-bees`). */
export interface TrayDie {
  dieType: string;
  theme: string;
}

export interface Participant {
  /** The participant's own id (not the user's): it names the participant in paths. */
  id: number;
  username: string;
  /** `#rrggbb` */
  color: string;
  position: number;
  /**
   * saved rows of dice (the dddice SDK's `IDiceTray`), each a one-click roll on the board; `[]` when
   * none. At most 8 rows of 12 dice, 1,024 bytes of JSON.
   */
  dice_tray: TrayDie[][];
  created_at: Timestamp;
  updated_at: Timestamp;
  user: User;
}

/**
 * Whom a roll is whispered to (`Roll.participants[]`): the participant, and the same person again under
 * `participant` in dddice's pivot shape, for clients that read recipients from there (the Foundry module).
 */
export interface RollParticipant extends Participant {
  participant: Pick<Participant, 'id' | 'username' | 'color' | 'user'>;
}

export interface Room {
  slug: string;
  name: string;
  is_public: boolean;
  /** Shown to the owner and participants only; null for everyone else and for public rooms without one. */
  passcode: string | null;
  bg_file_path: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
  user: User;
  participants: Participant[];
}

export interface CreateRoomBody {
  name?: string;
  is_public?: boolean;
  /** Your own passcode (4 to 64 of letters, digits, `. _ ~ -`); omitted: one is generated for private rooms. */
  passcode?: string | null;
}

export interface UpdateRoomBody extends CreateRoomBody {
  bg_file_path?: string | null;
}

export interface UpdateParticipantBody {
  username?: string;
  color?: string;
  /** replaces the tray; `[]` empties it */
  dice_tray?: TrayDie[][];
  passcode?: string;
}

/** A face of a die: a number, a string, or an image. */
export type Face = number | string | { src: string; [key: string]: unknown };

export interface RollValue {
  uuid: string;
  /** die id, lower case (`d20`, `d10x`, `mod`) */
  type: string;
  theme?: string;
  /**
   * dddice's number of the face: its 1-based position, but a `d10x`'s tens digit (10 for 00) and a fate
   * die's (`df`) -1, 0 or 1; the modifier itself for `mod`; null when hidden from this viewer
   */
  value: number | null;
  /** the face; null when hidden from this viewer */
  value_to_display: Face | null;
  is_hidden: boolean;
  is_user_value: boolean;
  is_visible: boolean;
  is_cleared: boolean;
  is_dropped: boolean;
  /** a dice pool's success (`8d10>=8`, counts +1) / failure (`f1`, counts -1); false when hidden from this viewer */
  is_success: boolean;
  is_failure: boolean;
  /** a throw of a compounding die (`3d6!!`): every throw of it, the first included */
  is_compounded: boolean;
  /** a penetrating throw (`3d6!p`): counts one less than its face */
  is_penetrated: boolean;
  /**
   * the request die (index into the roll request's `dice`) this value belongs to: every throw of a
   * rerolled, exploded or compounded die names it (`3d6!!`: the extra throws come after all the dice)
   */
  die_index: number;
  /**
   * the roll group (`{4d6+2d8, 3d20+3}kh1`) and part (sub-roll) the value belongs to: indices into
   * `operator.groups` and that group's `parts`; null outside groups. A dropped part's values are all
   * `is_dropped`, a part meeting the group's compare point has all its values `is_success` / `is_failure`.
   */
  group: number | null;
  group_part: number | null;
  label?: string | null;
  /**
   * free data the roll request attached to the die (`meta` of DieInput), null when none; once the roller
   * has put the die down (DieChange `meta.position`), an object holding `position: {x, z, y?}`
   */
  meta?: unknown;
  /**
   * what verifies a value the server drew (docs/fairness.md); null for values a client supplied, modifiers,
   * and rolls made before ledgers. `secret` is null for a viewer who may not see the value.
   */
  proof?: RollValueProof | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  [key: string]: unknown;
}

/** A drawn value's proof: its leaf in its ledger's batch, the path to the batch's root, and N. */
export interface RollValueProof {
  /** the batch's number in the roll's ledger */
  batch: number;
  /** the batch's Merkle root, hex (64 characters) */
  root: string;
  /** the leaf's index in the batch, 0..255 */
  leaf: number;
  /** SHA-256("odice-leaf:" || secret), hex */
  commitment: string;
  /** the 8 sibling hashes (hex) from the commitment up to the root */
  path: string[];
  /** the leaf's 32 bytes, hex; null for a viewer who may not see the value */
  secret: string | null;
  /** N, the number of faces the draw chose among */
  faces: number;
}

/** Which ledger a roll drew from, and the seed its roller sent (null: none). */
export interface RollFairness {
  ledger: string;
  client_seed: string | null;
}

export interface Roll {
  uuid: string;
  direction: number;
  velocity: number;
  user: User;
  room?: Room | null;
  values: RollValue[];
  operator: Record<string, unknown> | null;
  equation: string;
  /** a dice pool (`8d10>=8f1`) totals its successes minus its failures */
  total_value: number | null;
  /** only when the roll has a compare point: successes and failures among the dice this viewer sees */
  success_count?: number;
  failure_count?: number;
  label?: string | null;
  external_id: string | null;
  /** whom the roll is whispered to (empty when not whispered) */
  participants: RollParticipant[];
  /** the fairness ledger and client seed of the roll's draws; null for rolls made before ledgers */
  fairness?: RollFairness | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  [key: string]: unknown;
}

export interface DieInput {
  /** a die id of the theme (case-insensitive), or `mod` */
  type: string;
  theme: string;
  /** a predetermined face, numbered as RollValue.value (a numeric string such as "15" is that number) */
  value?: number | string;
  value_to_display?: Face;
  is_hidden?: boolean;
  label?: string;
  /** free data kept with the die (at most 2048 bytes of JSON) */
  meta?: unknown;
}

/**
 * A roll group (`{4d6+2d8, 3d20+3}kh1`): `parts` lists each sub-roll's dice by index into `dice`
 * (modifiers too); the other keys are the group's operators, run in order after every dice operator:
 * `k` / `p` / `d` keep or drop whole parts by total (`"h1"`, `"l1"`, `">7"`; a group of one part: its
 * dice), `success` / `failure` count parts by total (`">=10"`, `"<3"`), `s` sorts them for showing.
 * Example: `{"parts": [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9]], "k": "h1"}`.
 */
export interface RollGroup {
  parts: number[][];
  k?: string;
  p?: string;
  d?: string;
  success?: string;
  failure?: string;
  s?: string;
}

/**
 * A roll's operators: d20's (`{"k": "h3"}`, `{"rr": "<3"}`, `{"e": "6"}`, `{"mi": 2}`), the SDK's (`d`, `*`,
 * `/`, `round`), and rpg-dice-roller's: `{"success": ">=8", "failure": "1"}` (a pool: total = successes
 * minus failures), `{"!": ""}` / `{"!!": ">=5"}` / `{"!p": ""}` / `{"!!p": ""}` (explode, compound,
 * penetrate; "" is the highest face), `{"u": ""}` (unique), `{"s": "d"}` (show sorted), and roll groups:
 * `{"groups": [{"parts": [[0, 1, 2, 3], [4, 5, 6, 7]], "k": "h1"}]}` (see RollGroup). A string applies to
 * every die; an object maps the operand to dice indices, `{"success": {">=8": [0, 1]}}`, or to several
 * sets of them, `{"k": {"h3": [[0, 1, 2, 3], [4, 5, 6, 7]]}}` (`{4d6kh3, 4d6kh3}`: each part its own keep).
 */
export type RollOperator = Record<string, string | number | Record<string, number[] | number[][]> | RollGroup[]>;

export interface CreateRollBody {
  dice?: DieInput[];
  /**
   * d20 syntax (`4d6kh3+2`) instead of `dice`: every die comes from `theme`. Also rpg-dice-roller's forms
   * (docs/dice.md): pools `8d10>=8f1`, explosions `3d6!`, `3d6!!>=5`, `3d6!p`, `1d6!!p`, unique `4d6u`,
   * sorting `4d6sd`, fudge `4dF+2` / `dF.1`, any `1d3`..`1d1000` on the built-in theme, a theme's `4dF`,
   * roll groups `{4d6+2d8, 3d20+3}kh1`, `{4d6kh3, 4d6kh3}`, `{...}kl1`, `{...}dh1`, `{...}>=10`, `{2d20}kh1`.
   */
  equation?: string;
  theme?: string;
  /** see RollOperator; applies to `dice` */
  operator?: RollOperator;
  external_id?: string;
  label?: string;
  /** room slug */
  room?: string;
  /** participant ids of the room who may see the roll (besides the roller) */
  whisper?: number[];
  /**
   * the roller's seed for the fairness draws (at most 64 characters; docs/fairness.md): createRoll sends 16
   * random bytes in hex when none is given, so the server cannot know it before the roll
   */
  client_seed?: string;
  /** angle in degrees the roll was thrown, 0 to 360 (default: random) */
  direction?: number;
  /** how hard the roll was thrown, 0 to 100 (default: random) */
  velocity?: number;
  [key: string]: unknown;
}

/** A change to one die of a roll (PATCH /roll, /roll/{uuid}). */
export interface DieChange {
  uuid: string;
  is_hidden?: boolean;
  is_visible?: boolean;
  is_cleared?: boolean;
  /** where the die was put down: percentages of the board's width (x) and depth (z), two decimals kept */
  meta?: { position: { x: number; z: number; y?: number } };
}

export interface RoomDiceChange {
  is_hidden?: boolean;
  is_visible?: boolean;
  is_cleared?: boolean;
}

export interface ThemeLabel {
  color: string;
  background_color: string;
}

export interface DieEntry {
  id: string;
  type: string;
  notation?: string;
}

export interface Theme {
  id: string;
  name: string;
  description: string;
  version: string;
  api_version: string;
  label: ThemeLabel;
  available_dice: Array<string | DieEntry>;
  meshes?: Record<string, string>;
  sizes?: Record<string, number>;
  physics?: { inertia?: Record<string, number>; weight?: Record<string, number> };
  sounds?: Array<Record<string, unknown>>;
  uniforms?: Record<string, Record<string, unknown>>;
  values?: Record<string, Face[]>;
  textures?: Array<Record<string, unknown>>;
  frag_shader?: string | null;
  vert_shader?: string | null;
  /**
   * file name (as the manifest gave it) -> URL it is served at, without a key. Every file field above
   * (`meshes`, `textures[].src`, `sounds[].src`, image faces' `src`) holds these URLs too.
   */
  assets?: Record<string, string>;
  user: User | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  [key: string]: unknown;
}

/** The multipart fields of theme creation. `manifest` is the JSON manifest (object or string). */
export interface CreateThemeInput {
  manifest: Record<string, unknown> | string;
  frag_shader?: string;
  vert_shader?: string;
  assets?: Array<{ name: string; data: Blob }>;
}

export interface ShareRequest {
  /** owner only */
  id?: string;
  code: string;
  /** the link to give people */
  url: string;
  theme: { id: string; name: string; version: string; label: ThemeLabel } | null;
  user: User | null;
  expires_at: Timestamp | null;
  status: 'active' | 'expired' | 'used_up';
  /** owner only */
  max_uses?: number | null;
  uses?: number;
  created_at?: Timestamp;
  updated_at?: Timestamp;
}

export interface CreateShareRequestBody {
  /** id of a theme you own */
  theme: string;
  expires_at?: Timestamp | null;
  max_uses?: number | null;
}

export interface UpdateShareRequestBody {
  expires_at?: Timestamp | null;
  max_uses?: number | null;
}

export interface DiceBoxQuery {
  filter?: string;
  ids?: string;
}

/** GET /room/{slug}/stats and GET /user/stats: what narrows the statistics (all optional). */
export interface StatsQuery {
  /** rolls made at or after this time (ISO 8601) */
  since?: Timestamp;
  /** rolls made before this time (ISO 8601) */
  until?: Timestamp;
  /** room statistics only: the rolls of the user with this uuid */
  user?: string;
  /** one die type (`d20`) */
  type?: string;
}

/** One face of a die in the statistics: the face, its number as roll values give it, how often it was drawn. */
export interface StatsFace {
  face: Face;
  value: number;
  count: number;
}

/**
 * The figures of one die type (for one list of faces: a type whose themes give it different faces has
 * one entry per list, `themes` saying which). `count` and `counts` are the values the server drew,
 * dropped and rerolled ones included; `user_values` those a client supplied, never in the test.
 */
export interface DieStats {
  type: string;
  themes: string[];
  /** the number of faces */
  faces: number;
  count: number;
  /** every face in the die's face order, zeros included */
  counts: StatsFace[];
  /** mean of the faces drawn; null when a face is not a number, or nothing was drawn */
  mean: number | null;
  /** a fair die's mean; null when a face is not a number */
  expected_mean: number | null;
  /** Pearson's statistic against a fair die (every face 1/faces); null when nothing was drawn */
  chi_square: number | null;
  degrees_of_freedom: number;
  /** the chance of a statistic at least this large from a fair die; null when there is nothing to test */
  p_value: number | null;
  user_values: number;
}

export interface RollStats {
  /** how many rolls the counted values come from */
  rolls: number;
  dice: DieStats[];
}

/** Events a webhook may receive (docs/webhooks.md); `*` is all of them. */
export type WebhookEventType =
  'roll.created' | 'roll.updated' | 'roll.deleted' | 'room.updated' | 'room.deleted' | 'participant.joined' | 'participant.updated' | 'participant.left';

/** A webhook (POST/GET /webhook): where events are sent, never its secret after creation. */
export interface Webhook {
  /** uuid: names the webhook in paths */
  id: string;
  url: string;
  events: (WebhookEventType | '*')[];
  /** the room's slug, or null: the creator's own rolls in any room or none */
  room: string | null;
  format: 'standard' | 'discord';
  visibility: 'owner' | 'public';
  is_active: boolean;
  /** why the server disabled it (a 410, too many failures), null otherwise */
  disabled_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A webhook just created, or its secret just rotated: the only answers with `secret`. */
export interface NewWebhook extends Webhook {
  /** `whsec_` + base64 of 24 random bytes: verify deliveries with it (Standard Webhooks) */
  secret: string;
}

export interface CreateWebhookBody {
  url: string;
  events: (WebhookEventType | '*')[];
  room?: string | null;
  format?: 'standard' | 'discord';
  visibility?: 'owner' | 'public';
}

export interface UpdateWebhookBody {
  url?: string;
  events?: (WebhookEventType | '*')[];
  is_active?: boolean;
}

/** One event's delivery to a webhook, as its log shows it. */
export interface WebhookDelivery {
  /** the event's id: the `webhook-id` header, the same on every attempt */
  id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  attempts: number;
  last_status_code: number | null;
  duration_ms: number | null;
  next_attempt_at: Timestamp | null;
  /** a short reason for the last failure (or skip) */
  error: string | null;
  /** at most 1 KiB of the receiver's last answer */
  response: string | null;
  created_at: Timestamp;
  finished_at: Timestamp | null;
}

/** GET /room/{slug}/fairness, GET /user/fairness: a ledger as published (docs/fairness.md). */
export interface FairnessLedger {
  ledger: string;
  /** the batch the next draw comes from and how many of its leaves are used; null when `before` paged past it */
  current: { batch: number; root: string; used: number; created_at: Timestamp } | null;
  /** draws over the whole ledger: the next is batch next_draw / 256, leaf next_draw % 256 */
  next_draw: number;
  /** batches published, newest first (those ahead of the current one too) */
  batches: { batch: number; root: string; created_at: Timestamp }[];
  links: { next: string | null };
}

/** GET .../fairness/batch/{batch}: every leaf's commitment and the roll value that drew it. */
export interface FairnessBatch {
  ledger: string;
  batch: number;
  root: string;
  created_at: Timestamp;
  leaves: { leaf: number; commitment: string; state: 'unused' | 'used' | 'deleted'; roll: string | null; value: string | null }[];
}
