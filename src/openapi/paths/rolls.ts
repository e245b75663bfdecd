import * as rolls from '../../rolls/schema';
import { asComponent, fromJoi, withNotes } from '../fromJoi';
import { DICE_CODES, headerParam, operation, queryParam } from '../operations';
import { roll, rollId, slug } from '../params';
import { cursorPageOf, listOf, ref, type Schema } from '../schemas';

/** The components the roll bodies share (their dice, operators and die changes), taken out of the bodies below. */
export const rollSchemas: Record<string, Schema> = {};

const roomIgnored: Schema = { description: "Accepted and ignored: some clients send the roll's room along" };
const dieChange: Schema = { description: 'New flags for one die of a roll; give at least one' };

function bodyOfCreate(body: Schema): Schema {
  asComponent(body, 'dice[]', 'DieInput', rollSchemas);
  return asComponent(body, 'operator', 'Operator', rollSchemas);
}

/** Rolls. */
export const rollsPaths: Record<string, Record<string, unknown>> = {
  '/api/1.0/roll': {
    post: operation('createRoll', {
      tag: 'Rolls',
      summary: 'Roll dice',
      description:
        'Give `dice` (each with a `type` and a `theme`), or an `equation` in d20 syntax with a `theme` for all its dice. ' +
        '`external_id` is your label for the roll: many rolls may share one. To retry safely, send an `Idempotency-Key`.',
      params: [
        headerParam(
          'Idempotency-Key',
          'A key of your choosing (1 to 255 visible ASCII characters; a UUID). The same key and the same body within 24 hours answer the first ' +
            'result again (with `Idempotent-Replayed: true`) and roll nothing; the same key with another body is a 422 `idempotency_key_reused`; ' +
            'while the first request runs, a 409 `idempotency_key_in_flight`. Keys are per user.',
          { type: 'string', minLength: 1, maxLength: 255 },
        ),
      ],
      body: bodyOfCreate(
        withNotes(fromJoi(rolls.createBody), {
          '': { description: 'Either `dice` or `equation`; `operator` goes with `dice` only (an equation carries its own)' },
          equation: { examples: ['4d6kh3+2'] },
          theme: { description: 'Theme of every die of `equation`', default: 'standard' },
          room: { description: 'Room slug: the roll goes to that room' },
          whisper: { description: 'Participant ids who alone (with you) see the roll' },
          direction: { description: 'Angle in degrees the roll was thrown (default: random)' },
          velocity: { description: 'How hard the roll was thrown (default: random)' },
          dice: {
            description: `The dice; their \`label\` and \`meta\` together at most ${rolls.MAX_CARRIED_BYTES} bytes, counted again over every value the roll makes (each reroll and explosion carries its die's)`,
          },
          'dice[]': {
            description: 'One die: a die id of the theme, or `mod` with a `value`',
          },
          'dice[].type': { description: 'A die id of the theme (case-insensitive), or `mod` with a `value`', examples: ['d20'] },
          'dice[].theme': { description: 'Theme id', examples: ['standard'] },
          'dice[].value': {
            description:
              "Predetermined face, as dddice numbers it: its 1-based position, a `d10x`'s tens digit (10 for 00), a fate die's -1, 0 or 1; a numeric string is that number (the modifier for `mod`)",
          },
          'dice[].value_to_display': {
            description: `A face of a die: a number, a string, or an image (\`{src}\` names a file of the theme; at most ${rolls.MAX_FACE_BYTES} bytes of JSON)`,
          },
          'dice[].meta': { description: `Free data kept with the die and with each value rolled for it (at most ${rolls.MAX_META_BYTES} bytes of JSON)` },
          operator: {
            description:
              'Operators in d20 syntax (`k` keep, `p` drop, `rr` reroll until, `ro` reroll once, `ra` reroll and add, `e` explode, `mi` minimum, `ma` maximum, ' +
              'with selectors hN, lN, N, >N, <N) or the dddice SDK vocabulary (`k`, `d`, `*`, `/`, `round`). A string applies to all dice; ' +
              `an object maps selector -> indices into \`dice\`. At most ${rolls.MAX_OPERATOR_BYTES} bytes of JSON.`,
            examples: [{ k: 'h3' }],
          },
        }),
      ),
      example: {
        dice: [
          { type: 'd20', theme: 'standard' },
          { type: 'mod', value: 5 },
        ],
        room: 'k7d2mqx9h4tbw3ze',
        label: 'Perception',
      },
      success: [{ status: '201', description: 'The roll (also when an `Idempotency-Key` retry answers the first result)', schema: roll }],
      errors: [...DICE_CODES, 'forbidden', 'not_found', 'unknown_theme', 'unknown_participant', 'idempotency_key_reused', 'idempotency_key_in_flight'],
    }),
    delete: operation('clearRoomTable', {
      tag: 'Rolls',
      summary: "Clear a room's table (its history): the room owner",
      params: [queryParam('room', 'Room slug', { type: 'string' })],
      success: [{ status: '204', description: 'Cleared' }],
      errors: ['forbidden', 'not_found'],
    }),
    patch: operation('updateRolls', {
      tag: 'Rolls',
      summary: 'Hide or show dice of several rolls',
      body: asComponent(
        withNotes(fromJoi(rolls.bulkBody), { 'rolls[].room': roomIgnored, 'rolls[].dice[]': dieChange }),
        'rolls[].dice[]',
        'DieChange',
        rollSchemas,
      ),
      example: { rolls: [{ uuid: '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b', dice: [{ uuid: '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f', is_hidden: false }] }] },
      success: [{ status: '200', description: 'The rolls', schema: listOf('roll', ref('Roll')) }],
      errors: ['unknown_roll_value', 'forbidden', 'not_found'],
    }),
  },
  '/api/1.0/roll/{uuid}': {
    get: operation('getRoll', {
      tag: 'Rolls',
      summary: 'A roll',
      params: [rollId],
      success: [{ status: '200', description: 'The roll', schema: roll }],
      errors: ['not_found'],
    }),
    patch: operation('updateRoll', {
      tag: 'Rolls',
      summary: 'Hide or show some of a roll’s dice, or add dice to it (the roller)',
      description:
        'An entry with a `uuid` sets flags on that die of the roll. An entry without one but with a `type` is a die thrown and added to the roll, ' +
        'as `POST /roll` takes one (theme, predetermined value, label, meta, the same checks and limits: 100 dice in the whole roll); ' +
        "the roll's total and equation follow. A roll whose operator does more than `*`, `/` and `round` takes no dice: 422 `dice_not_addable`.",
      params: [rollId],
      body: withNotes(fromJoi(rolls.updateBody), {
        room: roomIgnored,
        'dice[]': { description: 'A die of the roll (`uuid`) with new flags, or a die to add (`type`, no `uuid`)' },
      }),
      example: {
        dice: [
          { uuid: '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f', is_hidden: false },
          { type: 'd6', theme: 'standard' },
        ],
      },
      success: [{ status: '200', description: 'The roll', schema: roll }],
      errors: [...DICE_CODES, 'unknown_roll_value', 'forbidden', 'not_found', 'unknown_theme', 'dice_not_addable'],
    }),
  },
  '/api/1.0/room/{slug}/roll': {
    get: operation('listRoomRolls', {
      tag: 'Rolls',
      summary: 'The rolls of a room you may see, newest first (participants)',
      description: 'Cursor-paged: follow `links.next` (`?before=<uuid of the last roll>`), null at the end.',
      params: [
        slug,
        queryParam('before', 'Only rolls older than this roll (its uuid)', { type: 'string', format: 'uuid' }),
        queryParam('limit', 'Rolls per page', { type: 'integer', minimum: 1, maximum: 100, default: 20 }),
        queryParam('external_id', 'Only the rolls with this `external_id`', { type: 'string', minLength: 1, maxLength: 255 }),
      ],
      success: [{ status: '200', description: 'A page of rolls', schema: cursorPageOf('roll', ref('Roll')) }],
      errors: ['forbidden', 'not_found'],
    }),
    patch: operation('updateRoomRolls', {
      tag: 'Rolls',
      summary: "Change the flags of all your dice in a room (clear the board, reveal...); the owner: everyone's",
      description:
        'Without `participant`: every die of your rolls in the room (participants). `participant=*` (the owner only): every die of every roll in the room; ' +
        "`participant=<id>`: that participant's (the owner only, or your own id). Other participants' dice are only picked up or cleared (`is_visible`, `is_cleared`): `is_hidden` is a 403 for them. " +
        'The answer lists the changed rolls you may see.',
      params: [
        slug,
        queryParam('participant', "Whose dice: `*` (everyone's) or a participant id; yours when absent", {
          anyOf: [{ const: '*' }, { type: 'integer', minimum: 1, maximum: 2_147_483_647 }],
        }),
      ],
      body: withNotes(fromJoi(rolls.roomUpdateBody), { dice: { description: 'The flags to set on every die of yours in the room; at least one' } }),
      example: { dice: { is_cleared: true } },
      success: [{ status: '200', description: 'The rolls changed', schema: listOf('roll', ref('Roll')) }],
      errors: ['forbidden', 'not_found'],
    }),
  },
};
