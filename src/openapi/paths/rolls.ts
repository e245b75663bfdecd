import { DICE_CODES, operation, queryParam } from '../operations';
import { roll, rollId, slug } from '../params';
import { cursorPageOf, listOf, ref, type Schema } from '../schemas';

/** Rolls. */
export const rollsPaths: Record<string, Record<string, unknown>> = {
  '/api/1.0/roll': {
    post: operation('createRoll', {
      tag: 'Rolls',
      summary: 'Roll dice',
      description: 'Give `dice` (each with a `type` and a `theme`), or an `equation` in d20 syntax with a `theme` for all its dice.',
      body: {
        type: 'object',
        properties: {
          dice: { type: 'array', minItems: 1, maxItems: 100, items: ref('DieInput') },
          equation: { type: 'string', maxLength: 1000, examples: ['4d6kh3+2'] },
          theme: { type: 'string', description: 'Theme of every die of `equation`', default: 'standard' },
          operator: ref('Operator'),
          external_id: { type: 'string', maxLength: 255 },
          label: { type: 'string', maxLength: 255 },
          room: { type: ['string', 'null'], description: 'Room slug: the roll goes to that room' },
          whisper: { type: ['array', 'null'], items: { type: 'integer' }, description: 'Participant ids who alone (with you) see the roll' },
          direction: { type: 'number', minimum: 0, maximum: 360, description: 'Angle in degrees the roll was thrown (default: random)' },
          velocity: { type: 'number', minimum: 0, maximum: 100, description: 'How hard the roll was thrown (default: random)' },
        },
      },
      example: { dice: [{ type: 'd20', theme: 'standard' }, { type: 'mod', value: 5 }], room: 'k7d2mqx9h4tbw3ze', label: 'Perception' },
      success: [
        { status: '201', description: 'The roll', schema: roll },
        { status: '200', description: 'A roll you already made with this `external_id` (a retry): that roll, unchanged', schema: roll },
      ],
      errors: [...DICE_CODES, 'forbidden', 'not_found', 'unknown_theme', 'unknown_participant'],
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
      body: {
        type: 'object',
        required: ['rolls'],
        properties: {
          rolls: {
            type: 'array',
            items: {
              type: 'object',
              required: ['uuid', 'dice'],
              properties: { uuid: { type: 'string' }, dice: { type: 'array', items: ref('DieChange') } },
            },
          },
        },
      },
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
      summary: 'Hide or show some of a roll’s dice (the roller)',
      params: [rollId],
      body: { type: 'object', required: ['dice'], properties: { dice: { type: 'array', items: ref('DieChange') } } },
      example: { dice: [{ uuid: '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f', is_hidden: false }] },
      success: [{ status: '200', description: 'The roll', schema: roll }],
      errors: ['unknown_roll_value', 'forbidden', 'not_found'],
    }),
  },
  '/api/1.0/room/{slug}/roll': {
    get: operation('listRoomRolls', {
      tag: 'Rolls',
      summary: 'The rolls of a room you may see, newest first (participants)',
      description: 'Cursor-paged: follow `links.next` (`?before=<uuid of the last roll>`), null at the end.',
      params: [slug, queryParam('before', 'Only rolls older than this roll (its uuid)', { type: 'string', format: 'uuid' }), queryParam('limit', 'Rolls per page', { type: 'integer', minimum: 1, maximum: 100, default: 20 })],
      success: [{ status: '200', description: 'A page of rolls', schema: cursorPageOf('roll', ref('Roll')) }],
      errors: ['forbidden', 'not_found'],
    }),
    patch: operation('updateRoomRolls', {
      tag: 'Rolls',
      summary: 'Change the flags of all your dice in a room (clear the board, reveal...)',
      params: [slug],
      body: {
        type: 'object',
        required: ['dice'],
        properties: { dice: { type: 'object', properties: { is_hidden: { type: 'boolean' }, is_visible: { type: 'boolean' }, is_cleared: { type: 'boolean' } } } },
      },
      example: { dice: { is_cleared: true } },
      success: [{ status: '200', description: 'The rolls changed', schema: listOf('roll', ref('Roll')) }],
      errors: ['forbidden', 'not_found'],
    }),
  },
};

export const rollSchemas: Record<string, Schema> = {
  DieChange: {
    type: 'object',
    description: 'New flags for one die of a roll; give at least one',
    required: ['uuid'],
    properties: { uuid: { type: 'string', format: 'uuid' }, is_hidden: { type: 'boolean' }, is_visible: { type: 'boolean' }, is_cleared: { type: 'boolean' } },
  },
};
