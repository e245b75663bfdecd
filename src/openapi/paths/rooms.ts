import * as rooms from '../../rooms/schema';
import { fromJoi, withNotes } from '../fromJoi';
import { operation, pageParams, pathParam, queryParam } from '../operations';
import { chosenPasscode, image, participant, passcode, room, slug } from '../params';
import { pageOf, ref } from '../schemas';

/** Rooms and participants. */
export const roomsPaths: Record<string, Record<string, unknown>> = {
  '/api/1.0/room': {
    get: operation('listRooms', {
      tag: 'Rooms',
      summary: 'Rooms you created or joined',
      params: pageParams,
      success: [{ status: '200', description: 'A page of rooms, newest first', schema: pageOf('room', ref('Room')) }],
    }),
    post: operation('createRoom', {
      tag: 'Rooms',
      summary: 'Create a room',
      description: 'The creator joins as the first participant. A private room without a chosen passcode gets a generated one.',
      body: withNotes(fromJoi(rooms.createBody), {
        name: { description: 'Not blank. Default: a name made from your username' },
        is_public: { default: true },
        passcode: chosenPasscode,
      }),
      bodyOptional: true,
      example: { name: 'Friday game', is_public: false },
      success: [{ status: '201', description: 'The room', schema: room }],
      errors: ['quota_exceeded'],
    }),
  },
  '/api/1.0/room/{slug}': {
    get: operation('getRoom', {
      tag: 'Rooms',
      summary: 'A room with its participants',
      description: 'A private room needs its passcode unless you own it or are a participant.',
      params: [slug, queryParam('passcode', "A private room's passcode", { type: 'string', maxLength: 200 })],
      success: [{ status: '200', description: 'The room', schema: room }],
      errors: ['forbidden', 'not_found'],
    }),
    patch: operation('updateRoom', {
      tag: 'Rooms',
      summary: 'Rename a room, make it public or private, change its passcode or remove its background (owner only)',
      description: 'Changing the passcode of a private room removes every participant but the owner: they must join again with the new one.',
      params: [slug],
      body: withNotes(fromJoi(rooms.updateBody), {
        name: { description: 'Not blank' },
        passcode: chosenPasscode,
        bg_file_path: { description: 'Only null (remove the background); upload an image with POST /room/{slug}' },
      }),
      example: { name: 'Saturday game', is_public: true },
      success: [{ status: '200', description: 'The room', schema: room }],
      errors: ['forbidden', 'not_found', 'unprocessable'],
    }),
    post: operation('setRoomBackground', {
      tag: 'Rooms',
      summary: "Upload the room's background image (owner only)",
      params: [slug],
      multipart: {
        type: 'object',
        required: ['bg_file_path'],
        properties: { bg_file_path: { type: 'string', contentMediaType: 'image/*', description: 'PNG, JPEG, WebP or GIF, at most 5 MB' } },
      },
      success: [{ status: '200', description: 'The room, `bg_file_path` naming the image URL', schema: room }],
      errors: ['forbidden', 'not_found', 'quota_exceeded'],
    }),
    delete: operation('deleteRoom', {
      tag: 'Rooms',
      summary: 'Delete a room (owner only)',
      params: [slug],
      success: [{ status: '204', description: 'Deleted' }],
      errors: ['forbidden', 'not_found'],
    }),
  },
  '/api/1.0/room/{slug}/background/{file}': {
    get: operation('getRoomBackground', {
      tag: 'Rooms',
      summary: "The room's background image (no key: loaded by <img>)",
      auth: false,
      limited: true,
      params: [slug, pathParam('file', 'SHA-256 of the image and an extension', { type: 'string', pattern: '^[0-9a-f]{64}(\\.[a-z]{3,4})?$' })],
      success: [{ status: '200', description: 'The image', content: image }],
      errors: ['not_found'],
    }),
  },
  '/api/1.0/room/{slug}/participant': {
    post: operation('joinRoom', {
      tag: 'Participants',
      summary: 'Join a room',
      description: 'A private room needs its passcode, in the body or the query (`?passcode=`).',
      params: [slug, queryParam('passcode', "A private room's passcode", { type: 'string', maxLength: 200 })],
      body: withNotes(fromJoi(rooms.joinBody), { passcode }),
      bodyOptional: true,
      example: { passcode: 'h3k9wqz2' },
      success: [{ status: '200', description: 'The room, with you among its participants', schema: room }],
      errors: ['forbidden', 'not_found', 'already_participant', 'quota_exceeded'],
    }),
  },
  '/api/1.0/room/{slug}/participant/{participant}': {
    patch: operation('updateParticipant', {
      tag: 'Participants',
      summary: 'Change a participant’s username, colour or dice tray (the participant or the owner)',
      params: [slug, participant],
      body: withNotes(fromJoi(rooms.participantBody), {
        username: {
          description:
            'Stored normalized (NFKC, single spaces); no invisible, control or text-direction characters; not the name of another participant of the room (409 name_taken)',
        },
        passcode: { description: 'Accepted and ignored (some clients send it): who you are decides here' },
        dice_tray: {
          description:
            'Replaces the saved rows of dice (`[]` empties them): at most 8 rows of 1 to 12 dice, 1,024 bytes of JSON; each die a die id and a theme id. Whether the theme has the die is checked when the row is rolled',
        },
      }),
      example: {
        username: 'Alice',
        color: '#4363d8',
        dice_tray: [
          [{ dieType: 'd20', theme: 'dddice-bees' }],
          [
            { dieType: 'd6', theme: 'standard' },
            { dieType: 'd6', theme: 'standard' },
          ],
        ],
      },
      success: [{ status: '200', description: 'The room', schema: room }],
      errors: ['forbidden', 'not_found', 'name_taken'],
    }),
    delete: operation('removeParticipant', {
      tag: 'Participants',
      summary: 'Leave a room, or remove a participant (owner)',
      params: [slug, participant],
      success: [{ status: '204', description: 'Removed' }],
      errors: ['forbidden', 'not_found'],
    }),
  },
};
