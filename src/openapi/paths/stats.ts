import { MAX_FACE_ROWS } from '../../stats/store/counts';
import { operation, queryParam } from '../operations';
import { slug } from '../params';
import { envelope, nullable, ref, strict, type Schema } from '../schemas';

/** Roll statistics (docs/stats.md). */

const face: Schema = {
  description: 'The face, as the theme lists it: a number, a string, or an image (`{src}`)',
  anyOf: [{ type: 'number' }, { type: 'string' }, { type: 'object', required: ['src'], properties: { src: { type: 'string' } } }],
};

export const statsSchemas: Record<string, Schema> = {
  RollStats: strict({
    rolls: { type: 'integer', minimum: 0, description: 'How many rolls the counted values come from' },
    dice: { type: 'array', description: 'One entry per die type rolled (per list of faces, when its themes give it different faces)', items: ref('DieStats') },
  }),
  DieStats: strict({
    type: { type: 'string', examples: ['d20'] },
    themes: { type: 'array', items: { type: 'string' }, description: 'The themes these dice were rolled with' },
    faces: { type: 'integer', minimum: 1, description: 'The number of faces' },
    count: { type: 'integer', minimum: 0, description: 'Values the server drew, dropped and rerolled ones included' },
    counts: {
      type: 'array',
      description: 'Every face in the die’s face order, zeros included',
      items: strict({
        face,
        value: { type: 'number', description: 'The face’s number as roll values give it (`value`)' },
        count: { type: 'integer', minimum: 0 },
      }),
    },
    mean: nullable({ type: 'number', description: 'Mean of the faces drawn; null when a face is not a number or nothing was drawn' }),
    expected_mean: nullable({ type: 'number', description: 'A fair die’s mean; null when a face is not a number' }),
    chi_square: nullable({
      type: 'number',
      minimum: 0,
      description: 'Pearson’s statistic against a fair die (each face 1/faces); null when nothing was drawn',
    }),
    degrees_of_freedom: { type: 'integer', minimum: 0, description: 'faces - 1' },
    p_value: nullable({
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: 'The chance that a fair die gives a statistic at least this large; null when nothing was drawn or the die has one face',
    }),
    user_values: { type: 'integer', minimum: 0, description: 'Values a client supplied (`is_user_value`): never in the figures above' },
  }),
};

const filters = [
  queryParam('since', 'Only rolls made at or after this time (ISO 8601)', { type: 'string', format: 'date-time' }),
  queryParam('until', 'Only rolls made before this time (ISO 8601; after `since`)', { type: 'string', format: 'date-time' }),
  queryParam('type', 'Only dice of this type (case-insensitive)', { type: 'string', minLength: 1, maxLength: 64, examples: ['d20'] }),
];

const answer = [{ status: '200' as const, description: 'The statistics', schema: envelope('stats', ref('RollStats')) }];
const counted =
  'Every value the server drew counts, dropped and rerolled ones included; values a client supplied are only counted in `user_values`; modifiers are no dice. ' +
  `Only what you may see is counted: rolls whispered to others and other players' hidden dice are left out. More than ${MAX_FACE_ROWS} different faces in one answer is a 422: ask for one \`type\`.`;

export const statsPaths: Record<string, Record<string, unknown>> = {
  '/api/1.0/room/{slug}/stats': {
    get: operation('getRoomStats', {
      tag: 'Statistics',
      summary: 'How the dice of a room fell, per die type, against a fair die (participants)',
      description: counted,
      params: [slug, ...filters, queryParam('user', 'Only the rolls of this user (uuid)', { type: 'string', format: 'uuid' })],
      success: answer,
      errors: ['forbidden', 'not_found', 'unprocessable'],
    }),
  },
  '/api/1.0/user/stats': {
    get: operation('getUserStats', {
      tag: 'Statistics',
      summary: 'How your own dice fell, in rooms or not, per die type, against a fair die',
      description: `${counted} \`user\` is refused here (400): these are your rolls.`,
      params: filters,
      success: answer,
      errors: ['unprocessable'],
    }),
  },
};
