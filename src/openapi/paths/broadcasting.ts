import { broadcastingAuthSchema } from '../../realtime/pusher/routes';
import { fromJoi } from '../fromJoi';
import { operation } from '../operations';
import { strict } from '../schemas';

/** POST /broadcasting/auth: the stock dddice SDK's channel authorisation for the Pusher gateway (docs/sdk.md). */
export const broadcastingPaths: Record<string, Record<string, unknown>> = {
  '/broadcasting/auth': {
    post: operation('broadcastingAuth', {
      tag: 'Realtime',
      summary: 'Authorise a Pusher channel for the stock dddice SDK (answer without the API envelope)',
      description:
        "For the Pusher-protocol gateway at `/app/{key}` (a websocket; docs/sdk.md). The body is JSON (the SDK) or `application/x-www-form-urlencoded` (pusher-js's own authoriser). Granted: `presence-room.{slug}` to the room's owner and participants, `private-room.{slug}.{uuid}` and `private-user.{uuid}` to the user `uuid` only; every other channel is a 403. The answer is `{auth, channel_data}` at the top level, as pusher-js reads it: `auth` is `<app key>:<HMAC-SHA256 of socket_id:channel_name:channel_data>`, and `channel_data` a JSON string holding `user_id` (the user's uuid), `user_info` (presence channels: the participant as `GET /room/{slug}` shows it) and `key` (an opaque reference to the API key the grant is for, never its internal id: revoking that key ends the subscription).",
      body: fromJoi(broadcastingAuthSchema.body),
      example: { socket_id: '123.456', channel_name: 'presence-room.abc123' },
      success: [
        {
          status: '200',
          description: 'The grant, for this socket and channel only',
          schema: strict({ auth: { type: 'string', pattern: '^[^:]+:[0-9a-f]{64}$' }, channel_data: { type: 'string' } }),
        },
      ],
      errors: ['forbidden'],
    }),
  },
};
