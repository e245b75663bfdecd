import type {
  ChannelGrant,
  CursorPage,
  HistoryQuery,
  CreateRollBody,
  CreateShareRequestBody,
  UpdateShareRequestBody,
  CreateRoomBody,
  CreateThemeInput,
  DiceBoxQuery,
  DieChange,
  DieInput,
  Envelope,
  ErrorBody,
  ErrorDetail,
  Page,
  PageQuery,
  Roll,
  RollStats,
  Room,
  RoomDiceChange,
  StatsQuery,
  ShareRequest,
  Theme,
  UpdateParticipantBody,
  UpdateRoomBody,
  UpdateUserBody,
  User,
  ApiKey,
  NewApiKey,
  CreateWebhookBody,
  NewWebhook,
  UpdateWebhookBody,
  Webhook,
  WebhookDelivery,
  FairnessBatch,
  FairnessLedger,
} from './types';

export const API_PREFIX = '/api/1.0';

/** 16 random bytes in hex, from the platform's CSPRNG (browsers and Node 20 alike). */
export function newClientSeed(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A refusal from the server (or no answer at all): `message` is written for people. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  /** JSON body */
  body?: unknown;
  /** multipart body (theme creation, room backgrounds) */
  form?: FormData;
  /** send the key (default true) */
  auth?: boolean;
  signal?: AbortSignal;
}

export interface DiceClientOptions {
  /** The server's origin, e.g. `https://dice.example` (no `/api/1.0`). Empty string: same origin (browsers). */
  baseUrl: string;
  apiKey?: string | null;
  /** Another fetch (tests, older runtimes). */
  fetch?: typeof fetch;
}

function pathPart(value: string | number): string {
  return encodeURIComponent(String(value));
}

/**
 * The REST API, one method per endpoint. Single resources resolve to their `data`; paged lists to the
 * whole page (`data`, `links`, `meta`); 204s to undefined. Failures reject with an ApiError.
 */
export class RestClient {
  readonly baseUrl: string;
  readonly apiKey: string | null;
  private readonly fetchImpl: typeof fetch;

  constructor(options: DiceClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey ?? null;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** The absolute (or, with an empty base, origin-relative) URL of an API path. */
  url(path: string, query?: Query): string {
    // The channel authorisation lives at the server root, where the dddice SDK calls it.
    const prefix = path.startsWith('/broadcasting/') ? '' : API_PREFIX;
    let url = path.startsWith('http://') || path.startsWith('https://') ? path : `${this.baseUrl}${prefix}${path}`;
    if (query) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.set(k, String(v));
      const qs = params.toString();
      if (qs) url += (url.includes('?') ? '&' : '?') + qs;
    }
    return url;
  }

  /** One request; answers the parsed JSON body (undefined for 204). */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.auth !== false && this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let body: BodyInit | undefined;
    if (options.form) body = options.form;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    let res: Response;
    try {
      res = await this.fetchImpl(this.url(path, options.query), { method, headers, body, signal: options.signal });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiError(0, 'network_error', `The server could not be reached (${(err as Error).message}).`);
    }
    const text = await res.text();
    let parsed: unknown;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    if (!res.ok) {
      const error = (parsed as ErrorBody | undefined)?.data;
      throw new ApiError(
        res.status,
        typeof error?.code === 'string' ? error.code : `http_${res.status}`,
        typeof error?.message === 'string' ? error.message : `The server answered ${res.status}.`,
        Array.isArray(error?.details) ? error.details : [],
        res.headers.get('x-request-id'),
      );
    }
    return parsed as T;
  }

  private async data<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
    return (await this.request<Envelope<T>>(method, path, options)).data;
  }

  private async none(method: string, path: string, options?: RequestOptions): Promise<void> {
    await this.request<undefined>(method, path, options);
  }

  /** POST /broadcasting/auth: a grant for a channel of the Pusher gateway (docs/sdk.md), answered without the envelope. */
  authorizeChannel(socketId: string, channelName: string): Promise<ChannelGrant> {
    return this.request<ChannelGrant>('POST', '/broadcasting/auth', { body: { socket_id: socketId, channel_name: channelName } });
  }

  // Users (no key needed for createGuest)

  /** POST /user: a new guest user; answers its API key. */
  createGuest(): Promise<string> {
    return this.data<string>('POST', '/user', { auth: false });
  }

  /** GET /user: the key's user. */
  me(): Promise<User> {
    return this.data<User>('GET', '/user');
  }

  /** PATCH /user: change your own name or username (409 `username_taken`). */
  updateMe(body: UpdateUserBody): Promise<User> {
    return this.data<User>('PATCH', '/user', { body });
  }

  /** GET /user/key: your live keys, by prefix (the keys themselves are never shown again). */
  listApiKeys(): Promise<ApiKey[]> {
    return this.data<ApiKey[]>('GET', '/user/key');
  }

  /** POST /user/key: another key; `key` is in this answer only, so keep it. */
  createApiKey(name?: string): Promise<NewApiKey> {
    return this.data<NewApiKey>('POST', '/user/key', { body: name === undefined ? {} : { name } });
  }

  /** DELETE /user/key/{prefix}: revoke one of your keys at once (not your last: 409 `last_key`). */
  deleteApiKey(prefix: string): Promise<void> {
    return this.none('DELETE', `/user/key/${pathPart(prefix)}`);
  }

  // Webhooks (docs/webhooks.md)

  /** POST /webhook: `secret` is in this answer only (and in a rotation's), so keep it. */
  createWebhook(body: CreateWebhookBody): Promise<NewWebhook> {
    return this.data<NewWebhook>('POST', '/webhook', { body });
  }

  listWebhooks(query: PageQuery = {}): Promise<Page<Webhook>> {
    return this.request<Page<Webhook>>('GET', '/webhook', { query: { ...query } });
  }

  getWebhook(id: string): Promise<Webhook> {
    return this.data<Webhook>('GET', `/webhook/${pathPart(id)}`);
  }

  /** PATCH /webhook/{id}: `url`, `events`, `is_active` (true re-enables a webhook the server disabled). */
  updateWebhook(id: string, body: UpdateWebhookBody): Promise<Webhook> {
    return this.data<Webhook>('PATCH', `/webhook/${pathPart(id)}`, { body });
  }

  deleteWebhook(id: string): Promise<void> {
    return this.none('DELETE', `/webhook/${pathPart(id)}`);
  }

  /** POST /webhook/{id}/secret: a new secret (answered once); the old one keeps signing beside it for 24 h. */
  rotateWebhookSecret(id: string): Promise<NewWebhook> {
    return this.data<NewWebhook>('POST', `/webhook/${pathPart(id)}/secret`, { body: {} });
  }

  /** POST /webhook/{id}/test: queue a `webhook.test` event; answers its delivery. */
  testWebhook(id: string): Promise<WebhookDelivery> {
    return this.data<WebhookDelivery>('POST', `/webhook/${pathPart(id)}/test`, { body: {} });
  }

  /** GET /webhook/{id}/delivery: the delivery log, newest first. */
  listWebhookDeliveries(id: string, query: PageQuery = {}): Promise<Page<WebhookDelivery>> {
    return this.request<Page<WebhookDelivery>>('GET', `/webhook/${pathPart(id)}/delivery`, { query: { ...query } });
  }

  // Rooms

  listRooms(query: PageQuery = {}): Promise<Page<Room>> {
    return this.request<Page<Room>>('GET', '/room', { query: { ...query } });
  }

  createRoom(body: CreateRoomBody = {}): Promise<Room> {
    return this.data<Room>('POST', '/room', { body });
  }

  getRoom(slug: string, passcode?: string | null): Promise<Room> {
    return this.data<Room>('GET', `/room/${pathPart(slug)}`, { query: { passcode } });
  }

  updateRoom(slug: string, body: UpdateRoomBody): Promise<Room> {
    return this.data<Room>('PATCH', `/room/${pathPart(slug)}`, { body });
  }

  deleteRoom(slug: string): Promise<void> {
    return this.none('DELETE', `/room/${pathPart(slug)}`);
  }

  /** POST /room/{slug} (multipart, field `bg_file_path`): the room's background image. */
  setRoomBackground(slug: string, image: Blob, filename = 'background'): Promise<Room> {
    const form = new FormData();
    form.append('bg_file_path', image, filename);
    return this.data<Room>('POST', `/room/${pathPart(slug)}`, { form });
  }

  /** GET /room/{slug}/background/{file}: the image bytes (no key needed). */
  async getRoomBackground(url: string): Promise<Blob> {
    const res = await this.fetchImpl(url);
    if (!res.ok) throw new ApiError(res.status, `http_${res.status}`, `The background could not be loaded (${res.status}).`);
    return res.blob();
  }

  joinRoom(slug: string, passcode?: string | null): Promise<Room> {
    return this.data<Room>('POST', `/room/${pathPart(slug)}/participant`, { body: passcode ? { passcode } : {} });
  }

  updateParticipant(slug: string, participantId: number, body: UpdateParticipantBody): Promise<Room> {
    return this.data<Room>('PATCH', `/room/${pathPart(slug)}/participant/${pathPart(participantId)}`, { body });
  }

  removeParticipant(slug: string, participantId: number): Promise<void> {
    return this.none('DELETE', `/room/${pathPart(slug)}/participant/${pathPart(participantId)}`);
  }

  // Rolls

  /** POST /roll, with a fresh client seed (16 random bytes, hex) unless the body brings its own. */
  createRoll(body: CreateRollBody): Promise<Roll> {
    return this.data<Roll>('POST', '/roll', { body: body.client_seed === undefined ? { ...body, client_seed: newClientSeed() } : body });
  }

  /** A room's fairness ledger as published (docs/fairness.md). */
  getRoomLedger(slug: string): Promise<FairnessLedger> {
    return this.data<FairnessLedger>('GET', `/room/${pathPart(slug)}/fairness`);
  }

  /** Your own ledger (the draws of your rolls outside rooms). */
  getUserLedger(): Promise<FairnessLedger> {
    return this.data<FairnessLedger>('GET', '/user/fairness');
  }

  getUserLedgerBatch(batch: number): Promise<FairnessBatch> {
    return this.data<FairnessBatch>('GET', `/user/fairness/batch/${pathPart(batch)}`);
  }

  /** One batch of a room's ledger: each leaf's commitment and the value that drew it. */
  getRoomLedgerBatch(slug: string, batch: number): Promise<FairnessBatch> {
    return this.data<FairnessBatch>('GET', `/room/${pathPart(slug)}/fairness/batch/${pathPart(batch)}`);
  }

  getRoll(uuid: string): Promise<Roll> {
    return this.data<Roll>('GET', `/roll/${pathPart(uuid)}`);
  }

  /** PATCH /roll/{uuid}: hide, show or clear some of your roll's dice (by uuid), or add dice to it (entries without a uuid). */
  updateRoll(uuid: string, dice: (DieChange | DieInput)[]): Promise<Roll> {
    return this.data<Roll>('PATCH', `/roll/${pathPart(uuid)}`, { body: { dice } });
  }

  /** PATCH /roll: several rolls at once. */
  updateRolls(rolls: Array<{ uuid: string; dice: DieChange[] }>): Promise<Roll[]> {
    return this.data<Roll[]>('PATCH', '/roll', { body: { rolls } });
  }

  /** GET /room/{slug}/roll: the rolls of a room you may see, newest first (cursor-paged). */
  listRoomRolls(slug: string, query: HistoryQuery = {}): Promise<CursorPage<Roll>> {
    return this.request<CursorPage<Roll>>('GET', `/room/${pathPart(slug)}/roll`, { query: { ...query } });
  }

  /** GET /room/{slug}/stats: how the room's dice fell, as you may see them (participants). */
  getRoomStats(slug: string, query: StatsQuery = {}): Promise<RollStats> {
    return this.data<RollStats>('GET', `/room/${pathPart(slug)}/stats`, { query: { ...query } });
  }

  /** GET /user/stats: how your own dice fell, in rooms or not. */
  getUserStats(query: Omit<StatsQuery, 'user'> = {}): Promise<RollStats> {
    return this.data<RollStats>('GET', '/user/stats', { query: { ...query } });
  }

  /** DELETE /roll?room={slug}: clear the room's table. */
  clearRoomTable(slug: string): Promise<void> {
    return this.none('DELETE', '/roll', { query: { room: slug } });
  }

  /** PATCH /room/{slug}/roll: change the flags of all your dice in a room (clear the board...). */
  updateRoomRolls(slug: string, dice: RoomDiceChange): Promise<Roll[]> {
    return this.data<Roll[]>('PATCH', `/room/${pathPart(slug)}/roll`, { body: { dice } });
  }

  // Themes

  listThemes(query: PageQuery = {}): Promise<Page<Theme>> {
    return this.request<Page<Theme>>('GET', '/theme', { query: { ...query } });
  }

  createTheme(input: CreateThemeInput): Promise<Theme> {
    const form = new FormData();
    form.append('manifest', typeof input.manifest === 'string' ? input.manifest : JSON.stringify(input.manifest));
    if (input.frag_shader !== undefined) form.append('frag_shader', input.frag_shader);
    if (input.vert_shader !== undefined) form.append('vert_shader', input.vert_shader);
    for (const asset of input.assets ?? []) form.append('assets', asset.data, asset.name);
    return this.data<Theme>('POST', '/theme', { form });
  }

  getTheme(id: string): Promise<Theme> {
    return this.data<Theme>('GET', `/theme/${pathPart(id)}`);
  }

  deleteTheme(id: string): Promise<void> {
    return this.none('DELETE', `/theme/${pathPart(id)}`);
  }

  listThemeVersions(id: string, query: PageQuery = {}): Promise<Page<Theme>> {
    return this.request<Page<Theme>>('GET', `/theme/${pathPart(id)}/version`, { query: { ...query } });
  }

  getThemeVersion(id: string, version: string): Promise<Theme> {
    return this.data<Theme>('GET', `/theme/${pathPart(id)}/version/${pathPart(version)}`);
  }

  /**
   * A theme as its preview page shows it, with no key needed: the built-in theme, or a theme whose live
   * share link's code is given (docs/api/themes.md, "Preview"). `user` is null.
   */
  getThemePreview(id: string, options: { version?: string; share?: string } = {}): Promise<Theme> {
    const version = options.version === undefined ? '' : `/version/${pathPart(options.version)}`;
    return this.data<Theme>('GET', `/theme/${pathPart(id)}${version}/preview`, { query: options.share === undefined ? {} : { share: options.share } });
  }

  // Dice box

  listDiceBox(query: DiceBoxQuery & PageQuery = {}): Promise<Page<Theme>> {
    return this.request<Page<Theme>>('GET', '/dice-box', { query: { ...query } });
  }

  getDiceBoxTheme(id: string): Promise<Theme> {
    return this.data<Theme>('GET', `/dice-box/${pathPart(id)}`);
  }

  /** PATCH /dice-box/{id}: upgrade to the theme's latest version. */
  upgradeDiceBoxTheme(id: string): Promise<Theme> {
    return this.data<Theme>('PATCH', `/dice-box/${pathPart(id)}`);
  }

  removeDiceBoxTheme(id: string): Promise<void> {
    return this.none('DELETE', `/dice-box/${pathPart(id)}`);
  }

  // Share requests

  listShareRequests(query: PageQuery = {}): Promise<Page<ShareRequest>> {
    return this.request<Page<ShareRequest>>('GET', '/share-request', { query: { ...query } });
  }

  /** Share one of your themes: answers the request with its `url` to give people. */
  createShareRequest(body: CreateShareRequestBody): Promise<ShareRequest> {
    return this.data<ShareRequest>('POST', '/share-request', { body });
  }

  getShareRequest(id: string): Promise<ShareRequest> {
    return this.data<ShareRequest>('GET', `/share-request/${pathPart(id)}`);
  }

  updateShareRequest(id: string, body: UpdateShareRequestBody): Promise<ShareRequest> {
    return this.data<ShareRequest>('PATCH', `/share-request/${pathPart(id)}`, { body });
  }

  /** Revoke a share request: its URL stops working. */
  deleteShareRequest(id: string): Promise<void> {
    return this.none('DELETE', `/share-request/${pathPart(id)}`);
  }

  /** What a share link offers (by its code, the last part of its `url`). */
  previewShareRequest(code: string): Promise<ShareRequest> {
    return this.data<ShareRequest>('GET', `/share-request/code/${pathPart(code)}`);
  }

  /** Accept a share link: its theme lands in your dice box. */
  acceptShareRequest(code: string): Promise<Theme> {
    return this.data<Theme>('POST', `/share-request/code/${pathPart(code)}/accept`);
  }
}
