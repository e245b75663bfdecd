import { pathParam } from './operations';
import { envelope, ref, type Schema } from './schemas';

/** Parameters, envelopes and media types that several groups of paths share (src/openapi/paths/). */

export const slug = pathParam('slug', 'Room slug');
export const participant = pathParam('participant', 'Participant id (the `id` of a participant in the room)', { type: 'integer', minimum: 1 });
export const themeId = pathParam('id', 'Theme id');
export const rollId = pathParam('uuid', 'Roll uuid', { type: 'string', format: 'uuid' });
export const shareId = pathParam('id', 'Share request id (owners only)');
export const shareCode = pathParam('code', 'The code of a share link (the last part of its `url`)');

export const room = envelope('room', ref('Room'));
export const roll = envelope('roll', ref('Roll'));
export const theme = envelope('theme', ref('Theme'));
export const shareRequest = envelope('share_request', ref('ShareRequest'));

/** Words for the passcode fields of the room bodies (their rules come from the joi schemas). */
export const passcode: Schema = { description: "A private room's passcode" };
export const chosenPasscode: Schema = {
  description: 'Your own passcode (4 to 64 of letters, digits, `. _ ~ -`); empty or null: none for a public room, a generated one for a private room',
};

export const rateHeaders = {
  'RateLimit-Limit': { type: 'integer' },
  'RateLimit-Remaining': { type: 'integer' },
  'RateLimit-Reset': { type: 'integer' },
};

export const html = (description: string) => ({ 'text/html': { schema: { type: 'string', description } } });
export const image = { 'image/*': { schema: { type: 'string', contentMediaType: 'image/*' } } };
