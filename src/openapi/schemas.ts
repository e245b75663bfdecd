/**
 * The JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the resources the API answers with.
 * Presenters whitelist their fields, and so do these schemas (`additionalProperties: false`): the
 * response test (test/openapi) fails when a presenter gains a field the document does not describe,
 * which is how a leak or an undocumented change is caught.
 */
export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });

/** ISO 8601 UTC with six fractional digits and `Z`. */
export const TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$';
const timestamp: Schema = {
  type: 'string',
  format: 'date-time',
  pattern: TIMESTAMP_PATTERN,
  description: 'ISO 8601 UTC with six fractional digits and Z',
  examples: ['2026-01-02T03:04:05.123000Z'],
};
const uuid: Schema = { type: 'string', format: 'uuid' };
const hexColor: Schema = { type: 'string', pattern: '^#[0-9a-f]{6}$', examples: ['#e6194b'] };

/** An object whose every listed property is required (but for `optional`) and no other is allowed. */
export function strict(properties: Record<string, Schema>, extra: Partial<Schema> = {}, optional: readonly string[] = []): Schema {
  const required = Object.keys(properties).filter((k) => !optional.includes(k));
  return { type: 'object', required, additionalProperties: false, properties, ...extra };
}

/** `{type: kind, data: schema}`: one resource. */
export function envelope(kind: string, data: Schema): Schema {
  return strict({ type: { const: kind }, data });
}

/** `{type: "kind[]", data: [...], links, meta}`: a page of a list. */
export function pageOf(kind: string, item: Schema): Schema {
  return strict({ type: { const: `${kind}[]` }, data: { type: 'array', items: item }, links: ref('PageLinks'), meta: ref('PageMeta') });
}

/** A cursor-paged list (roll history): no totals, `links.next` carries the cursor. */
export function cursorPageOf(kind: string, item: Schema): Schema {
  return strict({
    type: { const: `${kind}[]` },
    data: { type: 'array', items: item },
    links: strict({
      first: { type: 'string', format: 'uri' },
      last: { type: 'null' },
      prev: { type: 'null' },
      next: nullable({ type: 'string', format: 'uri' }),
    }),
    meta: strict({
      path: { type: 'string', format: 'uri' },
      per_page: { type: 'integer', minimum: 1 },
      next_cursor: nullable({ type: 'string', format: 'uuid' }),
    }),
  });
}

/** `{type: "kind[]", data: [...]}`: a bounded list that is not paged. */
export function listOf(kind: string, item: Schema): Schema {
  return strict({ type: { const: `${kind}[]` }, data: { type: 'array', items: item } });
}

const face: Schema = {
  description: 'A face of a die: a number, a string, or an image (`{src}` names a file of the theme)',
  anyOf: [{ type: 'number' }, { type: 'string' }, { type: 'object', required: ['src'], properties: { src: { type: 'string' } } }],
};

/** A participant's fields (docs/spec.md §2.5), shared by Participant and RollParticipant. */
const participantProperties: Record<string, Schema> = {
  id: { type: 'integer', description: "The participant's own id (not the user's): it names the participant in paths" },
  username: { type: 'string', description: 'The name shown in this room; chosen by the participant' },
  color: hexColor,
  position: { type: 'integer', minimum: 0, description: 'Seat order in the room' },
  dice_tray: {
    type: 'array',
    description: "Saved rows of dice (the dddice SDK's `IDiceTray`), each a one-click roll on the board; `[]` when none",
    maxItems: 8,
    items: {
      type: 'array',
      maxItems: 12,
      items: strict({ dieType: { type: 'string', examples: ['d20'] }, theme: { type: 'string', examples: ['dddice-bees'] } }),
    },
  },
  created_at: timestamp,
  updated_at: timestamp,
  user: ref('User'),
};

export const schemas: Record<string, Schema> = {
  Error: strict(
    {
      type: { const: 'error' },
      data: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', description: 'Stable, machine-readable: see the table of codes', examples: ['validation_error'] },
          message: { type: 'string', description: 'A sentence for people: clients show it as is' },
          details: {
            type: 'array',
            description: 'Every bad field, with its path (`dice[0].type`, `query.page`)',
            items: strict({ path: { type: 'string' }, message: { type: 'string' } }),
          },
        },
      },
    },
    { description: 'Every error has this body.' },
  ),

  PageLinks: strict(
    {
      first: { type: 'string', format: 'uri' },
      last: { type: 'string', format: 'uri' },
      prev: nullable({ type: 'string', format: 'uri' }),
      next: nullable({ type: 'string', format: 'uri' }),
    },
    { description: 'Absolute URLs to fetch verbatim; `next` is null on the last page.' },
  ),

  PageMeta: strict({
    current_page: { type: 'integer', minimum: 1 },
    from: nullable({ type: 'integer', minimum: 1 }),
    last_page: { type: 'integer', minimum: 1 },
    path: { type: 'string', format: 'uri' },
    per_page: { type: 'integer', minimum: 1, maximum: 100 },
    to: nullable({ type: 'integer', minimum: 1 }),
    total: { type: 'integer', minimum: 0 },
  }),

  User: strict(
    {
      uuid,
      username: { type: 'string' },
      name: { type: 'string' },
      is_registered: { type: 'boolean', description: 'false for guests' },
      subscription: { type: 'boolean' },
      subscription_level: { type: 'number' },
      is_merchant: { type: 'boolean' },
      created_at: timestamp,
      updated_at: timestamp,
    },
    { description: 'The public face of a user: never an internal id, key or e-mail.' },
  ),

  Participant: strict(participantProperties, { description: 'docs/spec.md §2.5.' }),

  RollParticipant: strict(
    {
      ...participantProperties,
      participant: strict(
        {
          id: { type: 'integer', description: "The participant's id, as `id` beside it" },
          username: { type: 'string' },
          color: hexColor,
          user: ref('User'),
        },
        { description: "The same participant in dddice's pivot shape" },
      ),
    },
    {
      description:
        "Whom a roll is whispered to: the participant, and the same person again under `participant` in dddice's pivot shape (`{id, username, color, user}`), which the dddice Foundry module reads recipients from.",
    },
  ),

  Room: strict(
    {
      slug: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Identifies the room in paths and realtime namespaces' },
      name: { type: 'string' },
      is_public: { type: 'boolean' },
      passcode: nullable({ type: 'string', description: 'Shown to the owner, and to participants of a private room; null for everyone else' }),
      bg_file_path: nullable({ type: 'string', description: 'URL of the background image (served without a key)' }),
      created_at: timestamp,
      updated_at: timestamp,
      deleted_at: nullable(timestamp),
      user: ref('User'),
      participants: { type: 'array', items: ref('Participant') },
    },
    { description: 'docs/spec.md §2.4.' },
  ),

  RollValue: strict(
    {
      uuid,
      type: { type: 'string', description: 'Die id of the theme, lower case (`d20`, `d10x`), or `mod` for a modifier' },
      theme: { type: 'string', description: 'Theme id of the die' },
      value: nullable({
        type: 'number',
        description:
          "dddice's number of the face: its 1-based position, but a `d10x`'s tens digit (10 for 00) and a fate die's (`df`) -1, 0 or 1; the number itself for `mod`; null when hidden from you",
      }),
      value_to_display: nullable({ ...face, description: 'The face shown (numbers as strings); null when hidden from you' }),
      label: nullable({ type: 'string' }),
      meta: {
        description:
          "Free data the roll request attached to the die, null when none. Once the roller has put the die down (PATCH /roll, `dice[].meta.position`), `position: {x, z}` (percent of the board's width and depth) is set in it, replacing a meta that was not an object. Shown to everyone who sees the roll, for hidden dice too.",
      },
      is_hidden: { type: 'boolean', description: 'Only the roller sees the value' },
      is_user_value: { type: 'boolean', description: 'The caller predetermined the value' },
      is_visible: { type: 'boolean' },
      is_cleared: { type: 'boolean', description: 'Picked up from the board' },
      is_dropped: { type: 'boolean', description: 'Dropped by an operator (kh3, pl1...): does not count in the total' },
      is_success: { type: 'boolean', description: 'A success of a dice pool (`8d10>=8`): counts +1; false when hidden from you' },
      is_failure: { type: 'boolean', description: 'A failure of a dice pool (`8d10>=8f1`): counts -1; false when hidden from you' },
      is_compounded: { type: 'boolean', description: 'A throw of a compounding die (`3d6!!`): its throws add into one die; false when hidden from you' },
      is_penetrated: { type: 'boolean', description: 'A penetrating throw (`3d6!p`): counts one less than its face; false when hidden from you' },
      die_index: {
        type: 'integer',
        minimum: 0,
        description:
          "The request die this value belongs to (an index into the roll request's `dice`; a d100 is two). Rerolls, explosions and a compounding die's throws come after all the dice, each naming its die",
      },
      group: nullable({
        type: 'integer',
        minimum: 0,
        description: 'The roll group (`{4d6+2d8, 3d20+3}kh1`) the value belongs to: an index into `operator.groups`; null outside groups',
      }),
      group_part: nullable({
        type: 'integer',
        minimum: 0,
        description:
          "The group's part (sub-roll) the value belongs to: an index into that group's `parts`. A part the group dropped has all its values `is_dropped`; a part that meets the group's compare point has all its values `is_success` (or `is_failure`)",
      }),
      proof: nullable({
        ...ref('RollValueProof'),
        description:
          'What verifies a value the server drew (docs/fairness.md); null for values the client supplied, modifiers, and rolls made before fairness ledgers',
      }),
      created_at: timestamp,
      updated_at: timestamp,
    },
    { description: 'docs/spec.md §2.7.' },
  ),

  RollValueProof: strict(
    {
      batch: { type: 'integer', minimum: 0, description: "The batch's number in the roll's ledger" },
      root: { type: 'string', pattern: '^[0-9a-f]{64}$', description: "The batch's Merkle root, as the ledger published it before any of its leaves was used" },
      leaf: { type: 'integer', minimum: 0, maximum: 255, description: "The leaf's index in its batch" },
      commitment: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256("odice-leaf:" || secret)' },
      path: {
        type: 'array',
        minItems: 8,
        maxItems: 8,
        items: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        description: 'The 8 sibling hashes from the commitment up to the root, leaf level first',
      },
      secret: nullable({ type: 'string', pattern: '^[0-9a-f]{64}$', description: "The leaf's 32 bytes; null when the value is hidden from you" }),
      faces: {
        type: 'integer',
        minimum: 1,
        description: "N: the number of faces the draw chose among (the face index is a 0-based position in the theme's face order)",
      },
    },
    {
      description:
        'A drawn value\'s proof: face index = first x = big-endian uint32 of HMAC-SHA256(secret, client_seed ":" j), j = 0, 1, ..., with x < floor(2^32 / N) * N; face = x mod N.',
    },
  ),

  RollFairness: strict(
    {
      ledger: { type: 'string', format: 'uuid', description: "The ledger the roll drew from: its room's, or its roller's for rolls outside rooms" },
      client_seed: nullable({ type: 'string', maxLength: 64, description: 'The seed the roller sent (null: none, the draws used the empty string)' }),
    },
    { description: 'Which ledger a roll drew from, and with which client seed.' },
  ),

  FairnessLedger: strict(
    {
      ledger: { type: 'string', format: 'uuid' },
      current: nullable(
        strict({
          batch: { type: 'integer', minimum: 0, description: 'The batch the next draw comes from' },
          root: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          used: { type: 'integer', minimum: 0, maximum: 256, description: 'Leaves of it already drawn' },
          created_at: timestamp,
        }),
      ),
      next_draw: {
        type: 'integer',
        minimum: 0,
        description: 'Leaves drawn over the whole ledger: the next draw is batch next_draw / 256, leaf next_draw % 256',
      },
      batches: {
        type: 'array',
        description: 'Every batch published, newest first (unused ones ahead of the current one too), at most `limit` from `before`',
        items: strict({ batch: { type: 'integer', minimum: 0 }, root: { type: 'string', pattern: '^[0-9a-f]{64}$' }, created_at: timestamp }),
      },
      links: strict({ next: nullable({ type: 'string', description: 'The older batches, when there are more' }) }),
    },
    { description: 'A fairness ledger as published: the current batch, how far it is used, and the roots of its batches.' },
  ),

  FairnessBatch: strict(
    {
      ledger: { type: 'string', format: 'uuid' },
      batch: { type: 'integer', minimum: 0 },
      root: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      created_at: timestamp,
      leaves: {
        type: 'array',
        minItems: 256,
        maxItems: 256,
        items: strict({
          leaf: { type: 'integer', minimum: 0, maximum: 255 },
          commitment: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          state: {
            type: 'string',
            enum: ['unused', 'used', 'deleted'],
            description:
              '`used`: a roll value drew it (named below); `deleted`: drawn by a roll since deleted (its table was cleared); `unused`: not drawn yet',
          },
          roll: nullable({ type: 'string', format: 'uuid' }),
          value: nullable({ type: 'string', format: 'uuid' }),
        }),
      },
    },
    { description: "A batch's 256 commitments and which roll value drew each leaf: a skipped or reused leaf would show here." },
  ),

  Roll: strict(
    {
      uuid,
      direction: { type: 'number', description: 'Angle in degrees the roll was thrown' },
      velocity: { type: 'number', description: 'How hard the roll was thrown' },
      user: ref('User'),
      room: nullable(ref('Room')),
      values: { type: 'array', items: ref('RollValue') },
      operator: nullable({
        type: 'object',
        description:
          'The operators used, as given (or as parsed from an equation); `groups` lists roll groups as `{parts: [[dice indices], ...], k?, p?, d?, success?, failure?, s?}`',
      }),
      equation: { type: 'string', description: 'The roll in d20 syntax (without modifiers hidden from you)' },
      total_value: {
        type: 'number',
        description: 'Sum of the dice that are not dropped (of those you may see); a dice pool counts its successes minus its failures',
      },
      success_count: { type: 'integer', minimum: 0, description: 'Only when the roll has a compare point (`8d10>=8`): successes among the dice you may see' },
      failure_count: { type: 'integer', minimum: 0, description: 'Only when the roll has a compare point: failures (`f1`) among the dice you may see' },
      external_id: nullable({ type: 'string' }),
      label: nullable({ type: 'string' }),
      participants: { type: 'array', description: 'Whom the roll was whispered to (empty when not whispered)', items: ref('RollParticipant') },
      fairness: nullable({
        ...ref('RollFairness'),
        description: "The ledger and client seed of the roll's draws (docs/fairness.md); null for rolls made before fairness ledgers",
      }),
      created_at: timestamp,
      updated_at: timestamp,
    },
    { description: 'docs/spec.md §2.6.' },
    ['success_count', 'failure_count'],
  ),

  DieEntry: {
    description: 'A die of `available_dice`: a physical type as a string, or `{id, type, notation}`',
    anyOf: [
      { type: 'string' },
      { type: 'object', required: ['id', 'type'], properties: { id: { type: 'string' }, type: { type: 'string' }, notation: { type: 'string' } } },
    ],
  },

  Theme: {
    type: 'object',
    description: 'One version of a theme (docs/spec.md §2.3).',
    required: ['id', 'name', 'description', 'version', 'api_version', 'label', 'available_dice', 'user', 'created_at', 'updated_at'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9_-]{0,98}[a-z0-9])?$' },
      name: { type: 'string' },
      description: { type: 'string' },
      version: { type: 'string', description: 'SemVer 2.0.0' },
      api_version: { const: '1.0' },
      label: strict({ color: { type: 'string' }, background_color: { type: 'string' } }),
      available_dice: { type: 'array', items: ref('DieEntry') },
      meshes: {
        type: 'object',
        description: 'Die id -> URL of its mesh (every file field of the manifest is presented as the URL that serves the file without a key)',
        additionalProperties: { type: 'string' },
      },
      sizes: { type: 'object', additionalProperties: { type: 'number' } },
      physics: { type: 'object' },
      sounds: {
        type: 'array',
        items: { type: 'object' },
        description:
          '`src`: a URL, or die id -> URL. `roll.loading` sounds: `value` compares the hand size (number of dice thrown): a number or "=N"/"==N" (exactly), ">=N", ">N", "<=N", "<N"',
      },
      uniforms: { type: 'object', additionalProperties: { type: 'object' } },
      values: { type: 'object', additionalProperties: { type: 'array', items: face } },
      textures: { type: 'array', items: { type: 'object' }, description: '`src`: a URL, or die id -> URL' },
      frag_shader: nullable({ type: 'string' }),
      vert_shader: nullable({ type: 'string' }),
      assets: {
        type: 'object',
        description: 'File name (as the manifest gave it) -> URL it is served at, without a key: `/api/1.0/theme/{id}/version/{version}/asset/{sha256}/{name}`',
        additionalProperties: { type: 'string' },
      },
      user: nullable(ref('User')),
      created_at: timestamp,
      updated_at: timestamp,
    },
  },

  ShareRequest: {
    type: 'object',
    description:
      'A link that shares a theme: whoever accepts it gets the theme in their dice box. Its owner sees every field; others (previewing a link) see no `id`, usage or times.',
    required: ['code', 'url', 'theme', 'user', 'expires_at', 'status'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', description: 'Owner only: names the request in paths' },
      code: { type: 'string' },
      url: { type: 'string', format: 'uri', description: 'The link to give people' },
      theme: nullable(
        strict({
          id: { type: 'string' },
          name: { type: 'string' },
          version: { type: 'string' },
          label: strict({ color: { type: 'string' }, background_color: { type: 'string' } }),
        }),
      ),
      user: nullable(ref('User')),
      expires_at: nullable(timestamp),
      status: { enum: ['active', 'expired', 'used_up'] },
      max_uses: nullable({ type: 'integer', minimum: 1 }),
      uses: { type: 'integer', minimum: 0 },
      created_at: timestamp,
      updated_at: timestamp,
    },
  },
};
