import { BODY_CODES, errorResponseComponents, errorResponses, ERROR_RESPONSES, type Code } from './operations';
import { extraSchemas, paths } from './paths';
import { ref, schemas, type Schema } from './schemas';

/**
 * The realtime side, which OpenAPI has no words for: kept here as `x-realtime` so the document
 * describes the whole service and the /docs page can show it.
 */
const realtime = {
  description:
    'Socket.IO. One namespace per room: `io(base + "/room/" + slug, {auth: {token: apiKey, passcode, since, since_seq}})`; join the room first ' +
    '(`POST /api/1.0/room/{slug}/participant`). A refused handshake is a `connect_error` whose `message` is the error code ' +
    '(`unauthorized`, `forbidden`, `not_found`, `validation_error`, `service_unavailable`) and whose `data.message` is for people. ' +
    '`since` is the uuid of the last roll you saw: the server replays what came after (up to 500 rolls). ' +
    'Every server event carries `{data}` with what REST would answer you (redacted for you alike); room events (not moves) also carry `seq`, ' +
    "the room's sequence number of the event (strictly increasing per room, with gaps). `since_seq` is the highest `seq` you received: " +
    'the server replays exactly the room events after it that you may see, in order, each once (up to 500 logged events; ' +
    'when its log no longer covers that seq it falls back to `since`). ' +
    'Being removed from the room, or a passcode change of a private room, or revoking the key you connected with, disconnects you (reason `io server disconnect`). ' +
    '`ReplayRequiredEvent` means you may have missed events (a Redis outage): the server closes the connection next; reconnect with `since_seq` and `since`. ' +
    'The `/user` namespace (`auth: {token}`) tells you of your dice box.',
  namespaces: {
    '/room/{slug}': {
      server: {
        RoomUpdateEvent: ref('Room'),
        RoomDeleteEvent: ref('Room'),
        RollCreateEvent: ref('Roll'),
        RollUpdateEvent: ref('Roll'),
        RollDeleteEvent: { type: 'object', required: ['uuid'], properties: { uuid: { type: 'string', format: 'uuid' } } },
        ParticipantConnectEvent: ref('Participant'),
        ParticipantDisconnectEvent: ref('Participant'),
        RollValueMoveStartEvent: ref('Move'),
        RollValueMoveEvent: ref('Move'),
        RollValueMoveEndEvent: ref('Move'),
        ReplayRequiredEvent: {
          type: 'object',
          required: ['reason'],
          properties: { reason: { type: 'string', enum: ['redis_reconnected', 'events_lost'], description: 'Why events may have been missed' } },
        },
      },
      client: {
        RollValueMoveStartEvent: ref('MoveInput'),
        RollValueMoveEvent: ref('MoveInput'),
        RollValueMoveEndEvent: ref('MoveInput'),
      },
    },
    '/user': {
      server: {
        DiceBoxCreateEvent: ref('Theme'),
        DiceBoxDeleteEvent: { type: 'object', required: ['id'], properties: { id: { type: 'string', description: 'Theme id' } } },
      },
      client: {},
    },
  },
};

const vector: Schema = { type: 'object', required: ['x', 'y', 'z'], properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } } };
const rotation: Schema = { ...vector, properties: { ...(vector.properties as object), w: { type: 'number' } } };

const realtimeSchemas: Record<string, Schema> = {
  MoveInput: {
    type: 'object',
    description: 'Dragging a die (client -> server), at most 60 a second',
    required: ['uuid'],
    properties: { uuid: { type: 'string', format: 'uuid', description: 'Roll value uuid' }, roll_uuid: { type: 'string' }, position: vector, rotation },
  },
  Move: {
    type: 'object',
    description: "A drag relayed to the room; `rotation` is left out for those who may not see a hidden die's value",
    required: ['uuid', 'roll_uuid', 'user'],
    properties: {
      uuid: { type: 'string' },
      roll_uuid: { type: 'string' },
      position: vector,
      rotation,
      user: { type: 'object', properties: { uuid: { type: 'string' }, username: { type: 'string' } } },
    },
  },
};

const errorCodes = Object.entries(ERROR_RESPONSES)
  .map(([status, info]) => `| ${status} | ${info.codes.map((c) => `\`${c}\``).join(', ')} | ${info.description} |`)
  .join('\n');

const description = `A self-hostable 3D dice rolling service: JSON over HTTP, live rooms over Socket.IO.

Every endpoint under \`/api/1.0\` but guest creation, room background images and this document needs \`Authorization: Bearer <API key>\`.
Get a key with \`POST /api/1.0/user\` (a guest) or from the server's operator.

**Envelopes.** One resource: \`{"type": "room", "data": {...}}\`. A page of a list: \`{"type": "room[]", "data": [...], "links": {...}, "meta": {...}}\`,
with \`?page=N&per_page=M\` (at most 100); \`links.next\` is an absolute URL, null on the last page. Empty: 204.
Fields are snake_case; timestamps are ISO 8601 UTC with six fractional digits and \`Z\`.

**Errors.** Every error is \`{"type": "error", "data": {"code", "message", "details?"}}\`; \`message\` is for people, \`details\` lists
every bad field with its path. Unknown fields in a JSON body are ignored; wrong types are a 400.

| status | codes | when |
|---|---|---|
${errorCodes}
| 500 | \`internal_error\` | a bug; the message names the request id |

**Browsers on other origins.** Every answer under \`/api/1.0\` carries CORS headers: any origin by default, or those of \`CORS_ORIGINS\`. Preflights need no key.

**Rate limits.** Per key, per minute (\`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` on every answer); a 429 adds \`Retry-After\`. Wrong room passcodes are limited per user and room (\`PASSCODE_FAILURES_PER_HOUR\`): past it, joining or viewing that room with a passcode is a 429, the right passcode included. Bodies over 16 KiB are read only once the key is valid.`;

/**
 * Any write can carry a body, and the JSON body parser reads it before the route does: malformed JSON
 * (400), too large (413) or not JSON (415) can answer any POST, PATCH or DELETE, even one that takes none.
 */
function withBodyErrors(all: typeof paths): typeof paths {
  const out: typeof paths = {};
  for (const [path, item] of Object.entries(all)) {
    out[path] = {};
    for (const [method, op] of Object.entries(item as Record<string, { responses: Record<string, Record<string, unknown>> }>)) {
      if (!['post', 'put', 'patch', 'delete'].includes(method)) {
        out[path][method] = op;
        continue;
      }
      const { default: unexpected, ...rest } = op.responses;
      const successes = Object.fromEntries(Object.entries(rest).filter(([status]) => /^[23]/.test(status)));
      // Pages for browsers answer some errors as HTML (no codes listed): those stay as they are.
      const pages = Object.fromEntries(Object.entries(rest).filter(([status, r]) => /^[45]/.test(status) && !r['x-codes']));
      const codes = new Set<Code>([...Object.values(rest).flatMap((r) => (r['x-codes'] as Code[] | undefined) ?? []), ...BODY_CODES]);
      const errors = errorResponses([...codes]) as Record<string, Record<string, unknown>>;
      for (const [status, page] of Object.entries(pages)) {
        const json = errors[status];
        errors[status] = json ? { ...json, content: { ...(json.content as object), ...(page.content as object) } } : page;
      }
      out[path][method] = { ...op, responses: { ...successes, ...errors, default: unexpected } };
    }
  }
  return out;
}

function build() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Open Dice API',
      version: '1.0',
      summary: '3D dice rolls, themes and live rooms',
      description,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/', description: 'This server' }],
    security: [{ apiKey: [] }],
    tags: [
      { name: 'Users', description: 'Guest users, the key’s own user and its API keys' },
      { name: 'Rooms', description: 'Public and private spaces that rolls are sent to' },
      { name: 'Participants', description: 'Joining, leaving and personalising a room' },
      { name: 'Rolls', description: 'Dice thrown by a user, optionally in a room' },
      { name: 'Statistics', description: 'How the dice fell, per die type, against a fair die (docs/stats.md)' },
      { name: 'Fairness', description: "Commitments to the server's secrets before rolls, and what verifies each drawn value after (docs/fairness.md)" },
      { name: 'Themes', description: 'How dice look, sound and behave; versioned by SemVer' },
      { name: 'Dice box', description: 'The themes a user has added' },
      { name: 'Share requests', description: 'Sharing a theme through a URL' },
      { name: 'Webhooks', description: 'Signed deliveries of room and roll events to your own endpoints, and to Discord (docs/webhooks.md)' },
      { name: 'Realtime', description: 'Channel authorisation for the Pusher-protocol gateway (the stock dddice SDK)' },
      { name: 'Board', description: 'The browser dice board' },
      { name: 'Accounts', description: 'Pages for people: sign-up, sign-in, keeping a guest account, developer settings (docs/accounts.md)' },
      { name: 'Documentation', description: 'This document, as JSON and as a page' },
      { name: 'Operations', description: 'Health checks' },
    ],
    paths: withBodyErrors(paths),
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: `dk_` and 43 characters' },
      },
      schemas: { ...schemas, ...extraSchemas, ...realtimeSchemas },
      responses: errorResponseComponents(),
    },
    'x-realtime': realtime,
  };
}

export type OpenApiDocument = ReturnType<typeof build>;

let cached: OpenApiDocument | null = null;

/** The document, built once per process (it describes code, which does not change while running). */
export function openApiDocument(): OpenApiDocument {
  cached ??= build();
  return cached;
}
